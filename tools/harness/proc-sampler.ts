/** Reads a process's CPU time, children and resident size from /proc (Linux); the benchmarks sample these around runs. */
import { readFile } from 'node:fs/promises'

/** User + system CPU seconds a process has used so far; NaN when /proc cannot tell (gone, or not Linux). */
export async function cpuSeconds(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // After the command name: state is field 3, utime field 14 and stime field 15, in clock ticks (100 per second).
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

/**
 * CPU seconds that `pids` use from now until `spent()`, added up pid by pid. A pid that cannot be read at either end
 * (a short-lived child, such as a balancer's health-check script, that ended or began in between) is left out rather
 * than turning the sum into NaN: what it used cannot be told from /proc.
 */
export async function cpuMeter(pids: readonly number[]): Promise<{ spent: () => Promise<number> }> {
  const start = await Promise.all(pids.map(cpuSeconds))
  return {
    spent: async () => {
      const end = await Promise.all(pids.map(cpuSeconds))
      return end.reduce((sum, e, i) => (Number.isNaN(e) || Number.isNaN(start[i]!) ? sum : sum + e - start[i]!), 0)
    },
  }
}

/** The direct children of a process (a cluster primary's workers); none when /proc cannot tell. */
export async function childPids(pid: number): Promise<number[]> {
  try {
    return (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).trim().split(/\s+/).filter((x) => x !== '').map(Number)
  } catch {
    return []
  }
}

/** A process's resident set size in bytes (VmRSS); NaN when /proc cannot tell. */
export async function rssBytes(pid: number): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8')
    return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 'NaN') * 1024
  } catch {
    return Number.NaN
  }
}
