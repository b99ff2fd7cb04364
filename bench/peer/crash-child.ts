/**
 * One process of the peer crash drill (bench/peer/crash-drill.ts starts it; not run by hand):
 *
 *   node --import tsx bench/peer/crash-child.ts <mode> <checkpointDb> <effectsDb> <threadId> <steps> <durability> [<hang> <at>]
 *
 * `mode` `start` runs the LangGraph loop of bench/peer/langgraph-loop.ts from its first state, `resume`
 * calls `invoke(null)` on the same thread (LangGraph's way to go on from the last checkpoint). The
 * tool node has an effect: it appends a row (thread, seq, pid) to the `effects` table of its own SQLite
 * file, committed before the node returns. `hang` says where the process stops and waits to be
 * SIGKILLed by the drill: `tool` (inside tool call `at`, after its effect, before the node returns) or
 * `model` (inside model call `at + 1`, after tool call `at` returned). It prints `READY <hang> <at>`
 * when it waits there and `DONE <json>` when the run ends.
 */
import Database from 'better-sqlite3';
import { compileLoop, initialState, inProcessSteps, openSaver, recursionLimit } from './langgraph-loop.js';
import type { Durability, LoopStateValue, StepFunctions } from './langgraph-loop.js';

const [mode, checkpointDb, effectsDb, threadId, stepsText, durabilityText, hang, atText] =
  process.argv.slice(2);
if (!mode || !checkpointDb || !effectsDb || !threadId || !stepsText || !durabilityText)
  throw new Error(
    'usage: crash-child.ts <mode> <checkpointDb> <effectsDb> <threadId> <steps> <durability> [<hang> <at>]',
  );
const steps = Number(stepsText);
const at = Number(atText ?? 0);
const durability = durabilityText as Durability;

const effects = new Database(effectsDb);
effects.pragma('journal_mode = WAL');
effects.pragma('synchronous = FULL');
effects.exec('CREATE TABLE IF NOT EXISTS effects (thread TEXT, seq INTEGER, pid INTEGER)');
const append = effects.prepare('INSERT INTO effects (thread, seq, pid) VALUES (?, ?, ?)');

/** Wait here until the drill kills this process (a minute at most, then fail loudly). */
function waitForKill(): Promise<never> {
  process.stdout.write(`READY ${hang} ${at}\n`);
  return new Promise((_resolve, reject) =>
    setTimeout(() => reject(new Error('not killed within 60 s')), 60_000),
  );
}

const base = inProcessSteps(steps);
const fns: StepFunctions = {
  async model(input) {
    if (mode === 'start' && hang === 'model' && input.callSeq === at + 1) await waitForKill();
    return base.model(input);
  },
  async tool(input) {
    const output = await base.tool(input);
    append.run(threadId, input.seq, process.pid);
    if (mode === 'start' && hang === 'tool' && input.seq === at) await waitForKill();
    return output;
  },
};

const { saver } = openSaver(checkpointDb);
const graph = compileLoop(saver, fns, steps);
const config = { configurable: { thread_id: threadId }, recursionLimit: recursionLimit(steps), durability };
const final: LoopStateValue = await graph.invoke(mode === 'start' ? initialState(threadId) : null, config);
process.stdout.write(
  `DONE ${JSON.stringify({ toolCalls: final.toolCalls, modelCalls: final.modelCalls, text: final.decision?.text })}\n`,
);
process.exit(0);
