/**
 * Stands in for the MCP SDK's `validation/ajv-provider.js` in the CLI's bundle (scripts/build-cli.mjs).
 * The SDK's server imports its ajv validator at the top of the module, and uses it for one thing only:
 * checking a person's answer to an elicitation (`elicitInput`), which this server never asks for. Left
 * in, ajv and ajv-formats load before the server can answer its handshake. A call that did reach it
 * gets a plain error instead of an unchecked answer.
 */
export class AjvJsonSchemaValidator {
  getValidator(): never {
    throw new Error('this MCP server does not check elicitation answers (it never asks for one)');
  }
}
