import { Args, Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { confirm } from '../../src/cli/confirm.js'
import { describeProfile, inUseNote, inUseReport, andList, withoutCurrent, type ProfileInUseReport } from '../../src/cli/profile-lines.js'
import { configPath, isNamed, loadConfig, profileNamed, removeProfiles, unknownProfile } from '../../src/config/profiles.js'

export interface ProfilesRemoveResult {
  configFile: string
  /** The profiles removed; none when the question was answered no. */
  removed: string[]
  current: string | null
  /** The profile commands use now. */
  inUse: ProfileInUseReport
}

export default class ProfilesRemove extends BaseCommand<ProfilesRemoveResult> {
  static override summary = 'Remove saved profiles and their keys from the config file.'

  static override description =
    'A key is shown once when it is made, so the profile may hold its only copy: asks for confirmation on a terminal ' +
    'unless --yes is given; without a terminal --yes is required. Names that are not saved are refused with ' +
    'unknown_profile before anything is removed. Removing the current profile leaves none current: commands then use ' +
    '"default", or without one need a key (`bula profiles use NAME` makes another current).'

  static override examples = [
    '<%= config.bin %> <%= command.id %> nu-4321',
    '<%= config.bin %> <%= command.id %> memory-4311 memory-4312 --yes',
  ]

  static override strict = false

  static override args = {
    name: Args.string({ description: 'Names of saved profiles (see `bula profiles list`).', required: true }),
  }

  static override flags = {
    yes: Flags.boolean({ char: 'y', description: 'Do not ask for confirmation.' }),
  }

  async run(): Promise<ProfilesRemoveResult> {
    const { argv, flags } = await this.parse(ProfilesRemove)
    const names = [...new Set(argv as string[])]
    const before = await loadConfig()
    // Refused before the question: answering it must not be for nothing.
    const missing = names.find((name) => !profileNamed(before, name))
    if (missing !== undefined) throw unknownProfile(missing, before)
    if (!flags.yes) {
      const described = names.map((name) => describeProfile(name, before.profiles[name]!))
      const question =
        `Remove ${names.length === 1 ? 'profile' : 'profiles'} ${andList(described)}? ` +
        `The file may hold the only copy of ${names.length === 1 ? 'its keys' : 'their keys'}: a key is shown once, when it is made.`
      if (!(await confirm(question, '--yes'))) {
        this.log('Nothing was removed.')
        return { configFile: configPath(), removed: [], current: before.current ?? null, inUse: inUseReport(before, flags.profile) }
      }
    }
    const { config, file } = await removeProfiles(names)
    const inUse = inUseReport(config, flags.profile)
    this.log(`Removed ${names.length === 1 ? 'profile' : 'profiles'} ${andList(names.map((name) => `"${name}"`))} from ${file}.`)
    if (before.current !== undefined && names.includes(before.current)) this.log(`"${before.current}" was the current profile; none is current now${withoutCurrent(config)}`)
    const note = isNamed(inUse.from) ? inUseNote(config, inUse) : undefined
    if (note) this.log(note)
    return { configFile: file, removed: names, current: config.current ?? null, inUse }
  }
}
