// The panel's back/forward history, as a browser keeps one: showing something new drops what was
// ahead of the current entry; the oldest entries go once the budget is reached. Free of `vscode`, so
// a test can drive it.
import type { NavigationView } from '../../protocol/webview';

export interface HistoryEntry<T> {
  /** Names the entry to the webview, which keeps its own state (tab, selection) per entry. */
  readonly id: number;
  readonly value: T;
}

export class PanelHistory<T> {
  private entries: HistoryEntry<T>[] = [];
  private index = -1;
  private nextId = 1;

  /** At most `limit` entries are kept: a budget, so a long session does not keep every plan it showed. */
  constructor(private readonly limit: number) {}

  get current(): HistoryEntry<T> | undefined {
    return this.entries[this.index];
  }

  /** A new entry after the current one; the entries that were ahead of it are dropped. */
  push(value: T): HistoryEntry<T> {
    const entry = { id: this.nextId++, value };
    this.entries = [...this.entries.slice(0, this.index + 1), entry].slice(-this.limit);
    this.index = this.entries.length - 1;
    return entry;
  }

  /** Moves one entry back (-1) or forward (1); the entry moved to, or undefined at either end. */
  go(step: -1 | 1): HistoryEntry<T> | undefined {
    const entry = this.entries[this.index + step];
    if (entry) this.index += step;
    return entry;
  }

  /** Where `entry` is, for the webview's Back and Forward buttons. */
  nav(entry: HistoryEntry<T>): NavigationView {
    return { entry: entry.id, back: this.index > 0, forward: this.index < this.entries.length - 1 };
  }

  clear(): void {
    this.entries = [];
    this.index = -1;
  }
}
