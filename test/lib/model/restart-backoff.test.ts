/** The restart pause shared by serve and the front's cluster primary: 0.5 s doubling per step, capped at 30 s. */
import t from 'tap'
import { restartDelayMs } from '../../../src/lib/model/restart-backoff.js'

t.test('restart pause', async (t) => {
  const cases: Array<[number, number, string]> = [
    [-5, 500, 'a negative step counts as none'],
    [-1, 500, 'the front after a healthy run (failures 0, minus one)'],
    [0, 500, 'no doubling yet'],
    [1, 1_000, 'one doubling'],
    [2, 2_000, 'two'],
    [3, 4_000, 'three'],
    [4, 8_000, 'four'],
    [5, 16_000, 'five'],
    [6, 30_000, 'six would be 32 s: capped'],
    [7, 30_000, 'past the cap'],
    [1_000, 30_000, 'a very long run of deaths'],
    [Number.MAX_SAFE_INTEGER, 30_000, 'no overflow'],
  ]
  for (const [doublings, ms, what] of cases) t.equal(restartDelayMs(doublings), ms, `${doublings}: ${what}`)
})
