/** One benchmark: `run` prints its workload and figures; nothing is asserted. */
export interface Benchmark {
  readonly name: string;
  run(): Promise<void>;
}
