/**
 * Slack's documented limits on blocks and block elements, each from its Block Kit reference
 * page (https://docs.slack.dev/reference/block-kit/blocks/<block> and
 * …/block-kit/block-elements/<element>), as the official @slack/types repeats them in its
 * JSDoc (slackapi/node-slack-sdk packages/types/src/block-kit/blocks.ts, block-elements.ts,
 * composition-objects.ts, extensions.ts).
 */
export const BLOCK_RULES = {
  /** Any block: "Maximum length for this field is 255 characters" (block_id). */
  blockId: 255,
  /** Any interactive element: action_id "Maximum length for this field is 255 characters". */
  actionId: 255,
  /** Section: text "maximum length is 3000 characters". */
  sectionText: 3_000,
  /** Section: fields "Maximum number of items is 10"… */
  sectionFields: 10,
  /** …"Maximum length for the text in each item is 2000 characters". */
  sectionFieldText: 2_000,
  /** Header: "Maximum length for the text in this field is 150 characters". */
  headerText: 150,
  /** Context: elements "Maximum number of items is 10". */
  contextElements: 10,
  /** Actions: "There is a maximum of 25 elements in each action block". */
  actionsElements: 25,
  /** Input: label and hint "Maximum length for the text in this field is 2000 characters". */
  inputLabel: 2_000,
  inputHint: 2_000,
  /** Image: alt_text "Maximum length for this field is 2000 characters". */
  imageAltText: 2_000,
  /** Button: text 75, value 2000, url 3000 characters. */
  buttonText: 75,
  buttonValue: 2_000,
  buttonUrl: 3_000,
  /** Option object: text and description "Maximum length … is 75 characters". */
  optionText: 75,
  /** Static select: "Maximum number of options is 100", option groups 100. */
  selectOptions: 100,
  /** Overflow menu: "An array of up to 5" options. */
  overflowOptions: 5,
  /** Checkboxes, radio buttons: "A maximum of 10 options are allowed". */
  choiceOptions: 10,
  /** Placeholder of any element: "Maximum length for the text field … is 150 characters". */
  placeholder: 150,
  /** Plain-text input: min_length and max_length "Maximum value is 3000". */
  inputLength: 3_000,
} as const;

/** Where a payload breaks a rule: a JSON pointer (as Slack's messages give one) and why. */
export interface BlockProblem {
  pointer: string;
  message: string;
}

type Check = (value: Record<string, unknown>, at: string) => BlockProblem | undefined;

/**
 * The first problem of `blocks` (a message's or a view's), `base` being their JSON pointer
 * (`/blocks`, `/view/blocks`). Duplicates are refused too: "block_id should be unique for
 * each message and each iteration of a message" (blocks reference) and an action_id "Should
 * be unique among all other action_ids in the containing block" (extensions.ts).
 */
export function findBlockProblem(blocks: unknown[], base: string): BlockProblem | undefined {
  const blockIds = new Set<string>();
  for (const [index, block] of blocks.entries()) {
    const at = `${base}/${index}`;
    if (!isRecord(block) || typeof block.type !== "string") {
      return { pointer: at, message: "each block needs a type" };
    }
    if (typeof block.block_id === "string") {
      const id = block.block_id;
      if (id.length > BLOCK_RULES.blockId) return tooLong(`${at}/block_id`, BLOCK_RULES.blockId);
      if (blockIds.has(id))
        return { pointer: `${at}/block_id`, message: `duplicate block_id ${id}` };
      blockIds.add(id);
    }
    const problem = BLOCK_CHECKS[block.type]?.(block, at);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

const BLOCK_CHECKS: Record<string, Check> = {
  section: (block, at) => {
    const text = textOf(block.text);
    if (text === undefined && !Array.isArray(block.fields)) {
      return { pointer: at, message: "section needs text or fields" };
    }
    if (text !== undefined && text.length > BLOCK_RULES.sectionText) {
      return tooLong(`${at}/text`, BLOCK_RULES.sectionText);
    }
    if (Array.isArray(block.fields)) {
      if (block.fields.length > BLOCK_RULES.sectionFields) {
        return tooMany(`${at}/fields`, BLOCK_RULES.sectionFields);
      }
      for (const [i, field] of block.fields.entries()) {
        const fieldText = textOf(field) ?? "";
        if (fieldText.length > BLOCK_RULES.sectionFieldText) {
          return tooLong(`${at}/fields/${i}`, BLOCK_RULES.sectionFieldText);
        }
      }
    }
    return isRecord(block.accessory) ? checkElement(block.accessory, `${at}/accessory`) : undefined;
  },
  header: (block, at) => {
    const text = textOf(block.text);
    if (text === undefined) return { pointer: `${at}/text`, message: "header needs text" };
    return text.length > BLOCK_RULES.headerText
      ? tooLong(`${at}/text`, BLOCK_RULES.headerText)
      : undefined;
  },
  context: (block, at) =>
    Array.isArray(block.elements) && block.elements.length > BLOCK_RULES.contextElements
      ? tooMany(`${at}/elements`, BLOCK_RULES.contextElements)
      : undefined,
  actions: (block, at) => {
    const elements = Array.isArray(block.elements) ? block.elements : [];
    if (elements.length > BLOCK_RULES.actionsElements) {
      return tooMany(`${at}/elements`, BLOCK_RULES.actionsElements);
    }
    const actionIds = new Set<string>();
    for (const [i, element] of elements.entries()) {
      if (!isRecord(element)) continue;
      const problem = checkElement(element, `${at}/elements/${i}`);
      if (problem !== undefined) return problem;
      if (typeof element.action_id !== "string") continue;
      if (actionIds.has(element.action_id)) {
        return {
          pointer: `${at}/elements/${i}/action_id`,
          message: `duplicate action_id ${element.action_id}`,
        };
      }
      actionIds.add(element.action_id);
    }
    return undefined;
  },
  input: (block, at) => {
    if ((textOf(block.label) ?? "").length > BLOCK_RULES.inputLabel) {
      return tooLong(`${at}/label`, BLOCK_RULES.inputLabel);
    }
    if ((textOf(block.hint) ?? "").length > BLOCK_RULES.inputHint) {
      return tooLong(`${at}/hint`, BLOCK_RULES.inputHint);
    }
    return isRecord(block.element) ? checkElement(block.element, `${at}/element`) : undefined;
  },
  image: (block, at) =>
    typeof block.alt_text === "string" && block.alt_text.length > BLOCK_RULES.imageAltText
      ? tooLong(`${at}/alt_text`, BLOCK_RULES.imageAltText)
      : undefined,
  markdown: (block, at) =>
    typeof block.text === "string" ? undefined : { pointer: at, message: "markdown needs text" },
};

const OPTION_LIMITS: Record<string, number> = {
  static_select: BLOCK_RULES.selectOptions,
  multi_static_select: BLOCK_RULES.selectOptions,
  overflow: BLOCK_RULES.overflowOptions,
  checkboxes: BLOCK_RULES.choiceOptions,
  radio_buttons: BLOCK_RULES.choiceOptions,
};

/** An interactive element's own limits: ids, texts, options, placeholder, input lengths. */
function checkElement(element: Record<string, unknown>, at: string): BlockProblem | undefined {
  if (typeof element.action_id === "string" && element.action_id.length > BLOCK_RULES.actionId) {
    return tooLong(`${at}/action_id`, BLOCK_RULES.actionId);
  }
  if ((textOf(element.placeholder) ?? "").length > BLOCK_RULES.placeholder) {
    return tooLong(`${at}/placeholder`, BLOCK_RULES.placeholder);
  }
  if (element.type === "button") {
    if ((textOf(element.text) ?? "").length > BLOCK_RULES.buttonText) {
      return tooLong(`${at}/text`, BLOCK_RULES.buttonText);
    }
    if (typeof element.value === "string" && element.value.length > BLOCK_RULES.buttonValue) {
      return tooLong(`${at}/value`, BLOCK_RULES.buttonValue);
    }
    if (typeof element.url === "string" && element.url.length > BLOCK_RULES.buttonUrl) {
      return tooLong(`${at}/url`, BLOCK_RULES.buttonUrl);
    }
  }
  if (element.type === "plain_text_input") {
    for (const key of ["min_length", "max_length"] as const) {
      const n = element[key];
      if (typeof n === "number" && n > BLOCK_RULES.inputLength) {
        return {
          pointer: `${at}/${key}`,
          message: `must be no more than ${BLOCK_RULES.inputLength}`,
        };
      }
    }
  }
  const limit = typeof element.type === "string" ? OPTION_LIMITS[element.type] : undefined;
  if (limit === undefined) return undefined;
  const groups = Array.isArray(element.option_groups) ? element.option_groups : [];
  if (groups.length > BLOCK_RULES.selectOptions) {
    return tooMany(`${at}/option_groups`, BLOCK_RULES.selectOptions);
  }
  const lists: [string, unknown[]][] = [
    [`${at}/options`, Array.isArray(element.options) ? element.options : []],
    ...groups.map((g, i): [string, unknown[]] => [
      `${at}/option_groups/${i}/options`,
      isRecord(g) && Array.isArray(g.options) ? g.options : [],
    ]),
  ];
  for (const [pointer, options] of lists) {
    if (options.length > limit) return tooMany(pointer, limit);
    for (const [i, option] of options.entries()) {
      if (!isRecord(option)) continue;
      for (const key of ["text", "description"] as const) {
        if ((textOf(option[key]) ?? "").length > BLOCK_RULES.optionText) {
          return tooLong(`${pointer}/${i}/${key}`, BLOCK_RULES.optionText);
        }
      }
    }
  }
  return undefined;
}

function tooLong(pointer: string, max: number): BlockProblem {
  return { pointer, message: `must be no more than ${max} characters` };
}

function tooMany(pointer: string, max: number): BlockProblem {
  return { pointer, message: `no more than ${max} items allowed` };
}

/** The `text` of a text object. */
export function textOf(value: unknown): string | undefined {
  return isRecord(value) && typeof value.text === "string" ? value.text : undefined;
}

/** A plain object (not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
