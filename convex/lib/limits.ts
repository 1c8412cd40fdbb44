/** Input limits for the board; every oversized input gets an INVALID_ARGUMENT error naming the limit. */
export const LIMITS = {
  taskTitleChars: 200,
  taskDescriptionChars: 10_000,
  tagsPerTask: 10,
  tagChars: 32,
  assigneesPerTask: 10,
  messageChars: 10_000,
  agentNameChars: 60,
  agentRoleChars: 80,
  agentModelChars: 120,
  systemPromptChars: 20_000,
  departmentNameChars: 80,
  /** Largest page any paginated query returns. */
  pageSize: 100,
} as const;
