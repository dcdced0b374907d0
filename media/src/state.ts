// What a view remembers of what the user did in it (tab, search, selection, sort), per entry of the
// panel's back/forward history, so that going back shows the view as it was left.
export type UiState = Readonly<Record<string, unknown>>;

export interface ViewContext {
  readonly ui: UiState;
  save(patch: Readonly<Record<string, unknown>>): void;
}
