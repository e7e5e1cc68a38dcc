/** Whether concurrent status moves left a history that some serial order of them allows. */
import { allowedMoves, type ContactStatus } from "@mailroom/core"

/** True when the accepted moves (their target statuses, in any order) can be applied one after another from `start`,
 *  each allowed by the PATCH table (a move to the current status is allowed and changes nothing), and the last one
 *  leaves `final`. With no accepted move, `final` must be `start`. Searches the orders by the count of moves left per
 *  target, so twenty moves over six statuses take a few thousand steps at most. */
export const someSerialOrderAllows = (
  start: ContactStatus,
  accepted: ReadonlyArray<ContactStatus>,
  final: ContactStatus,
): boolean => {
  const targets = [...new Set(accepted)]
  const seen = new Set<string>()
  const search = (current: ContactStatus, left: ReadonlyArray<number>): boolean => {
    if (left.every((count) => count === 0)) return current === final
    const key = `${current}:${left.join(",")}`
    if (seen.has(key)) return false
    seen.add(key)
    return targets.some((to, i) =>
      left[i]! > 0 && (to === current || allowedMoves[current].includes(to))
      && search(to, left.map((count, j) => j === i ? count - 1 : count)))
  }
  return search(start, targets.map((to) => accepted.filter((status) => status === to).length))
}
