/**
 * The rules the fake holds the app to beyond answering its calls. Every fake is strict
 * unless told otherwise; a test that needs the fake of old turns one rule off, and says why.
 */
export interface StrictRules {
  /** `missing_scope` for a method the installed manifest's bot scopes do not cover. */
  scopes: boolean;
  /** `views.open` / `views.push` refuse unissued, expired (3 s) and exchanged triggers. */
  triggers: boolean;
  /** HTTP 429 once a method's rate tier is spent (see rate-tiers.ts). */
  rateTiers: boolean;
  /** Block Kit's per-block and per-element limits and unique ids (see block-rules.ts). */
  blockKit: boolean;
  /** `canvases.access.set` refuses DM and group-DM channel ids. */
  canvasAccess: boolean;
  /** People cannot write to the app's DM when the manifest's Messages tab forbids it. */
  messagesTab: boolean;
}

/** `true` (the default): every rule; `false`: none; or some rules turned off. */
export type StrictOption = boolean | Partial<StrictRules>;

/** The rules an option stands for. */
export function strictRules(option: StrictOption = true): StrictRules {
  const all = option !== false;
  const base: StrictRules = {
    scopes: all,
    triggers: all,
    rateTiers: all,
    blockKit: all,
    canvasAccess: all,
    messagesTab: all,
  };
  return typeof option === "object" ? { ...base, ...definedOnly(option) } : base;
}

function definedOnly(rules: Partial<StrictRules>): Partial<StrictRules> {
  return Object.fromEntries(Object.entries(rules).filter(([, v]) => v !== undefined));
}
