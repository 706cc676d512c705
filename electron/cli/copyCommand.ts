/**
 * `copy --to <dir|uri>`: the memory `--data` names, copied as it is to another folder or store (a
 * folder to a bucket and back), with the person's choice of sources (sources.json), then verified in
 * both places. Loads the store only when run.
 */
import type { Command } from 'commander';
import type { VerifyResult } from '../../shared/domain.js';
import { ExitStatus, locationOf, type GlobalOptions, type Io } from './support.js';

export function registerCopyCommand(program: Command, io: Io, globals: () => GlobalOptions): void {
  program
    .command('copy')
    .description('copy the memory to another folder or store (s3://, s3+ddb://, gs://, az://) as it is, then verify both; the target must hold no memory yet')
    .requiredOption('--to <dir|uri>', 'the folder or store URI to copy to')
    .option('--json', 'print JSON: {"from","to","sessions","messages","chunks","historyEvents","tables","indexes","durationMs","verify":{"from","to"}}')
    .action(async (options: { to: string; json?: boolean }) => {
      const from = locationOf(globals());
      // Checks the target's form before anything is read.
      locationOf({ ...globals(), data: options.to });
      const { copyStore } = await import('../engine/store/index.js');
      const { withEngine } = await import('./engineSupport.js');
      const report = await copyStore(globals().data ?? from.dataDir, options.to, {
        ...(globals().singleWriter ? { singleWriter: true } : {}),
        onProgress: (p) => {
          if (!options.json && io.isTTY) io.err(`${p.table}: ${p.rows}/${p.total} rows`);
        },
      });
      // The person's choice of sources goes with the memory: turning them on there brings back no forgotten session (the store's marks were copied).
      const { carrySourceSettings } = await import('../sources/sourceSettings.js');
      await carrySourceSettings(from.dataDir, locationOf({ ...globals(), data: options.to }).dataDir);
      const verify = async (data: string): Promise<VerifyResult> => withEngine({ ...globals(), data }, io, (engine) => engine.verify());
      const checked = { from: await verify(globals().data ?? from.dataDir), to: await verify(options.to) };
      if (options.json) io.out(JSON.stringify({ ...report, verify: checked }));
      else {
        io.out(`Copied ${report.from} to ${report.to}: ${report.sessions} sessions, ${report.messages} messages, ${report.chunks} chunks, ${report.historyEvents} history events (${(report.durationMs / 1000).toFixed(1)} s).`);
        for (const [where, result] of [[report.from, checked.from], [report.to, checked.to]] as const) {
          io.out(`verify ${where}: ${result.ok ? 'OK' : 'PROBLEMS'}: ${result.sessions} sessions, ${result.messages} messages, ${result.chunks} chunks`);
          for (const p of result.problems) io.out(`  - ${p}`);
        }
      }
      if (!checked.from.ok || !checked.to.ok) throw new ExitStatus(1);
    });
}
