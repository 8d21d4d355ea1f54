/** Slack's limits the builders stay within (docs/architecture.md, "Slack's limits"). */
export const SLACK_LIMITS = {
  messageBlocks: 50,
  modalBlocks: 100,
  homeBlocks: 100,
  messageMarkdownChars: 12_000,
  sectionText: 3_000,
  contextText: 3_000,
  headerText: 150,
  buttonText: 75,
  optionText: 75,
  optionValue: 150,
  staticOptions: 100,
  modalTitle: 24,
  modalButton: 24,
  privateMetadata: 3_000,
  blockId: 255,
  actionValue: 2_000,
  inputLabel: 2_000,
  placeholder: 150,
  plainTextInput: 3_000,
  confirmTitle: 100,
  confirmButton: 30,
} as const;

export const MAX_NAME_CHARS = 80;
