/** The simulated game's admin console: catalogue loading, blocklist, verbs, history, own traffic. */
export { CommandConsole, DEFAULT_CATALOG_DELAY_MS } from './engine.ts';
export type { ConsoleOptions, TypedCommand } from './engine.ts';
export { ConsoleActivity, DEFAULT_ACTIVITY_INTERVAL_MS, TASK_ACTOR } from './activity.ts';
export { consoleStateOf } from './state.ts';
export type { ConsoleState } from './state.ts';
export { formatCommand, parseCommand, splitWords, quoteWord, CommandLineError } from './command-line.ts';
export { checkArgs, usage } from './args.ts';
export { NOBODY_ONLINE } from './dispatch.ts';
export type * from './types.ts';
