/** The value at percentile `p` (0-100) of `sorted` (ascending): the nearest rank at or above it; NaN when empty. */
export const percentile = (sorted: ArrayLike<number>, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

/** The median of `values` (any order): the middle one, or the mean of the middle two. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** `mine[i] / theirs[i]` for each turn i, the divisor at least `floor` (a zero latency would divide by zero). */
export const ratiosByTurn = (mine: readonly number[], theirs: readonly number[], floor: number): number[] =>
  mine.map((value, turn) => value / Math.max(theirs[turn]!, floor));
