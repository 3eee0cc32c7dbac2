/** Resolves with the name of the first of `signals` the process receives. */
export function untilSignal(signals: readonly NodeJS.Signals[]): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const handler = (signal: NodeJS.Signals) => {
      for (const name of signals) process.off(name, handler);
      resolve(signal);
    };
    for (const name of signals) process.on(name, handler);
  });
}
