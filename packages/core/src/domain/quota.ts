/** The monthly sending quota: its period is a calendar month in UTC, and it resets on the 1st at 00:00 UTC. Spec:
 *  sending "Limits" (monthly emails per plan); the limits themselves are in account.ts's plan table. */

/** The quota period of a moment: its calendar month in UTC, "2026-03". */
export const quotaPeriod = (at: Date): string => at.toISOString().slice(0, 7)

/** The first instant of the next period: when the counter resets (the 1st, 00:00 UTC). */
export const quotaResetsAt = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1))

/** What a reservation of quota answered. */
export interface QuotaReservation {
  readonly reserved: boolean
  /** Recipients counted in the period after the call (unchanged when nothing was reserved). */
  readonly used: number
}
