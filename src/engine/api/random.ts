// Seeded randomness for the engine (tie-breaking, sampling). Same seed, same choices: every test and
// every plan can be replayed.

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
}

/** mulberry32: small, fast, and good enough for tie-breaking and sampling (not for secrets). */
export function seededRandom(seed: number): Random {
  return new Mulberry32(seed);
}

/** A class rather than closures so that int() compiles into its callers without boxing a float per call. */
class Mulberry32 implements Random {
  /** Kept as a signed 32-bit integer (the same bits as mulberry32's unsigned state), so it stays a small integer. */
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0;
  }

  next(): number {
    return this.step() / 4294967296;
  }

  int(n: number): number {
    const r = (this.step() / 4294967296) * n;
    // floor; as a small integer where it is one, so that no float is boxed.
    return r < 2147483648 ? r | 0 : Math.floor(r);
  }

  /** The next 32-bit output. */
  private step(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
}
