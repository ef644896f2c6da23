/** Serves until SIGINT or SIGTERM, then says `stopping` on stderr and waits for `stop`: the services' foreground loop. */
export async function serveUntilSignal(stopping: string, stop: () => Promise<void>): Promise<void> {
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      process.stderr.write(`${stopping}\n`);
      stop().then(resolve);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
}
