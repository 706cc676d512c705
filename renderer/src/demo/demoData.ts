/**
 * Demo data for looking at the UI without an engine (`?mock` in a build made with VITE_MEMORY_DEMO=1).
 * Everything here is invented and says so in its titles.
 */
import type { MessageInput, SessionInput } from '../../../shared/domain.js';
import type { MemoryApi } from '../../../shared/ipc.js';
import { createInMemoryApi } from './inMemoryApi.js';

const DAY = 86_400_000;

function dialogue(pairs: Array<[string, string]>, start: number, stepMs = 90_000): MessageInput[] {
  return pairs.flatMap(([question, answer], index) => [
    { msgId: `q${index + 1}`, role: 'user' as const, content: question, timestamp: new Date(start + index * 2 * stepMs).toISOString() },
    { msgId: `a${index + 1}`, role: 'assistant' as const, content: answer, timestamp: new Date(start + (index * 2 + 1) * stepMs).toISOString() },
  ]);
}

function longPlanningTalk(start: number): Array<[string, string]> {
  const topics = ['the garden beds', 'watering in July', 'compost heat', 'tomato seedlings', 'soil pH', 'the rain barrel', 'mulch', 'crop rotation'];
  return Array.from({ length: 120 }, (_, index) => {
    const topic = topics[index % topics.length] ?? 'the garden';
    return [
      `Demo question ${index + 1}: what should I do about ${topic} this week?`,
      `Demo answer ${index + 1}: for ${topic}, check it on ${new Date(start + index * DAY).toDateString()}, write down what changed, and keep notes short so the memory stays searchable.`,
    ];
  });
}

export function createDemoApi(options: { empty?: boolean } = {}): MemoryApi {
  const now = Date.now();
  const host = createInMemoryApi({
    step: () => new Promise((resolve) => setTimeout(resolve, 120)),
    settings: { dataDir: '/home/demo/.session-memory (demo)' },
  });
  if (options.empty) return host.api;
  const at = (daysAgo: number, hours = 0): string => new Date(now - daysAgo * DAY + hours * 3_600_000).toISOString();

  const lisbon: SessionInput = {
    sessionId: 'demo-lisbon-trip',
    title: 'Demo: Planning a train trip to Lisbon',
    source: 'chatgpt',
    messages: dialogue(
      [
        ['Demo: how do I get from Madrid to Lisbon by train?', 'There is no direct day train at the moment; the usual route goes via Badajoz and Entroncamento, or you take the night bus.'],
        ['Which tickets should I buy in advance?', 'Buy the Renfe leg to Badajoz early; the CP regional tickets can be bought on the day at the station.'],
        ['What about luggage limits?', 'Spanish and Portuguese trains have generous luggage rules: keep bags to what you can lift onto the rack.'],
        ['Recommend a hotel near the station in Lisbon.', 'Look around Santa Apolónia or Baixa; both are walkable from the river and close to the metro.'],
        ['And how long is the whole journey?', 'Plan for about nine to ten hours with the connections, so leave early in the morning.'],
        ['Can I do it with a rail pass?', 'Yes, an Interrail pass covers both operators; reservations are only needed on some Renfe trains.'],
      ],
      now - 30 * DAY,
    ),
  };
  host.save({ ...lisbon, messages: lisbon.messages.slice(0, 4) }, { at: at(30) });
  host.save({ ...lisbon, messages: lisbon.messages.slice(0, 8) }, { at: at(22) });
  host.save({ ...lisbon, messages: lisbon.messages.map((message) => (message.msgId === 'a2' ? { ...message, content: `${message.content} (Edited in the demo.)` } : message)) }, { at: at(9) });
  host.save(lisbon, { at: at(2) });

  const memory: SessionInput = {
    sessionId: 'demo-memory-zh',
    title: '演示：长期记忆的去重设计',
    source: 'claude',
    messages: dialogue(
      [
        ['演示：如何让对话记忆增量保存而不重复？', '给每条消息一个稳定的 ID 和内容哈希；再次保存时只写入新的或改过的消息，其余跳过。'],
        ['分块应该按什么粒度？', '按对话轮次打包，每块几百字；长消息可以跨多个块，这样检索时上下文完整。'],
        ['嵌入模型换了怎么办？', '存储里记录模型名称；不同模型的向量不能混在一起搜索，需要新的数据目录或重新嵌入。'],
        ['Can search find Chinese and English together?', 'With a multilingual embedding model, yes: 记忆 and memory land close to each other.'],
      ],
      now - 12 * DAY,
    ),
  };
  host.save({ ...memory, messages: memory.messages.slice(0, 2) }, { at: at(12) });
  host.save(memory, { at: at(5) });
  host.save(memory, { at: at(1), syncDeletes: true });

  const garden: SessionInput = { sessionId: 'demo-garden-log', title: 'Demo: A long garden log (240 messages)', source: 'openclaw', messages: dialogue(longPlanningTalk(now - 60 * DAY), now - 60 * DAY, DAY / 2) };
  host.save({ ...garden, messages: garden.messages.slice(0, 60) }, { at: at(60) });
  host.save({ ...garden, messages: garden.messages.slice(0, 130) }, { at: at(40) });
  host.save({ ...garden, messages: garden.messages.slice(0, 200) }, { at: at(20) });
  host.save({ ...garden, messages: garden.messages.slice(20, 240) }, { at: at(3), syncDeletes: true });

  host.save(
    {
      sessionId: 'demo-risotto',
      title: 'Demo: Risotto without stirring all evening',
      source: 'open-webui',
      messages: dialogue([['Demo: do I really have to stir risotto constantly?', 'No: stir at the start and the end; in between, add warm stock a ladle at a time and stir now and then.']], now - 3 * DAY),
    },
    { at: at(3, 2) },
  );
  host.save(
    {
      sessionId: 'demo-refactor-notes',
      title: 'Demo: Refactoring the importer',
      source: 'claude-code',
      messages: dialogue(
        [
          ['Demo: split the importer into one module per format.', 'Done: each format has a reader that yields sessions, and one registry picks the reader by sniffing the file.'],
          ['Add a test for the ZIP export.', 'Added a fixture with two conversations and a test that reads both without extracting to disk.'],
        ],
        now - 6 * DAY,
      ),
    },
    { at: at(6) },
  );
  return host.api;
}
