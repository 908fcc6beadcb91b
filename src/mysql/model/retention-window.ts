/** The retention side of `log_entries` as the prune reads it: one entry of a window (src/retention/ plans over these). */

/** One entry of a window, as the prune reads it. */
export interface WindowRow {
  id: string
  createdAt: Date
  /** True while the delivery consumer has yet to post it (its destination may be disabled). */
  pending: boolean
  /** True when an infraction names it as its evidence (the foreign key forbids deleting it anyway). */
  referenced: boolean
}
