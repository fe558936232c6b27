/**
 * States through export and import (issue 30). ZITADEL's document has a state for organisations
 * (`orgState`) and users (`state`); this service adds `state` to projects, applications, identity
 * providers, project grants and user grants (document.ts `resourceState`). A resource is imported
 * inactive exactly when the document says so; anything else (absent, UNSPECIFIED, ACTIVE) is active.
 * The export writes the field only for an inactive resource, so documents of active ones are as before.
 */
type Inactive = `${string}_STATE_INACTIVE`;
type Active<I extends Inactive> = I extends `${infer P}_STATE_INACTIVE` ? `${P}_STATE_ACTIVE` : never;

/** The state to store for a resource the document gives `given`. */
export function importedState<I extends Inactive>(given: string | undefined, inactive: I): I | Active<I> {
  return given === inactive ? inactive : (inactive.replace(/_INACTIVE$/, '_ACTIVE') as Active<I>);
}

/** The document's `state` for a stored one: only when it is not active (left out, as before, otherwise). */
export function exportedState(stored: string): { state?: string } {
  return stored.endsWith('_STATE_ACTIVE') ? {} : { state: stored };
}
