// autocannon ships no types and @types/autocannon lags its API; only what run.ts uses.
declare module 'autocannon' {
  namespace autocannon {
    interface Result {
      requests: { average: number; total: number };
      latency: { p99: number };
      /** Seconds the run took: it ends on a one-second tick, so a fractional `duration` runs longer. */
      duration: number;
      non2xx: number;
      errors: number;
    }
    interface Options {
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      connections?: number;
      duration?: number;
    }
  }
  /** The running load; `response` reports each reply's time in (fractional) milliseconds. */
  interface Instance {
    on(event: 'response', listener: (client: unknown, statusCode: number, bytes: number, milliseconds: number) => void): void;
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  function autocannon(options: autocannon.Options, done: (error: Error | null, result: autocannon.Result) => void): Instance;
  export default autocannon;
}
