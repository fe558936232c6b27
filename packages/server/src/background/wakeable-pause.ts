/**
 * The pause between a worker's rounds: `sleep(ms)` ends after `ms`, or as soon as `wake()` is called
 * (a poke: there is work now; a stop). A wake while no pause runs does nothing.
 */
export class WakeablePause {
  private wakeUp?: () => void;

  /** `unref`: the pause alone does not keep the process alive. */
  sleep(ms: number, options: { unref?: boolean } = {}): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      if (options.unref) timer.unref();
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  wake(): void {
    this.wakeUp?.();
  }
}
