/**
 * `presence-link version`: the release this installation runs (version, commit, Node) and the newest migration it
 * brings, the figures an upgrade is checked against (CHANGELOG.md; docs/operations.md, "Upgrading"). The same version
 * and commit are the labels of `presence_link_build_info`.
 */
import { buildInfo } from '../metrics/build-info.js'
import { MIGRATIONS } from '../mysql/migrate.js'
import type { CommandOutput } from './command.js'

/** The newest migration of this release (the last of the static list). */
export function newestMigration(): string {
  return Object.keys(MIGRATIONS).at(-1) ?? 'none'
}

/** Prints the release. */
export function versionCommand(): CommandOutput {
  const { version, commit, node } = buildInfo()
  return {
    lines: [`presence-link ${version}`, `commit ${commit}`, `node ${node}`, `schema ${newestMigration()} (the newest migration of this release; \`presence-link migrate\` applies it)`],
    exitCode: 0,
  }
}
