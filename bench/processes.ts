import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * How the bench starts an instance of the built service (`run.ts` owns the one way, and hands it
 * to the runs that need instances of their own): on the run's database, with its master key
 * and settings; `first` migrates and delivers (the others run with `MIGRATIONS_RUN=false` and
 * `DELIVERY_CONCURRENCY=0`), `env` adds or overrides settings, `nodeArgs` go to Node before the
 * script. Its stderr is the run's. The instance is stopped with the run.
 */
export type StartService = (options: {
  adapter: string;
  port: number;
  first?: boolean;
  env?: Record<string, string>;
  nodeArgs?: string[];
  /** `pipe`: the instance's log (its stdout) is the caller's, who must read it; by default it is dropped. */
  stdout?: 'ignore' | 'pipe';
}) => ChildProcess;

/** Node's flags that profile a process into `BENCH_CPU_PROF_DIR` (none when it is unset). */
export const profileArgs = (): string[] => (process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF_DIR}`] : []);

/** A process's resident memory (VmRSS), in MB. */
export function residentMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

/** CPU seconds a process has used so far, all its threads, user and system (Linux `/proc/<pid>/stat`, at 100 ticks a second). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name may hold spaces: the fields counted from after its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
