/** The three log categories, pure: the list every layer (schemas, rows, delivery, metrics) takes them from. */

/** The three log categories. */
export const LOG_CATEGORIES = ['server', 'ingame', 'moderation'] as const

/** One of the log categories. */
export type LogCategoryName = (typeof LOG_CATEGORIES)[number]

/** True when `value` names a category. */
export function isLogCategory(value: string): value is LogCategoryName {
  return (LOG_CATEGORIES as readonly string[]).includes(value)
}
