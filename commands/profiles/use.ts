import { Args } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { describeProfile, inUseNote, inUseReport, type ProfileInUseReport } from '../../src/cli/profile-lines.js'
import { makeProfileCurrent } from '../../src/config/profiles.js'

export interface ProfilesUseResult {
  configFile: string
  current: string
  /** The profile commands use now: the new current one unless --profile or BULA_PROFILE names another. */
  inUse: ProfileInUseReport
}

export default class ProfilesUse extends BaseCommand<ProfilesUseResult> {
  static override summary = 'Make a saved profile the current one.'

  static override description =
    'Commands then use it unless --profile or BULA_PROFILE names another, which the command says. A name that is not ' +
    'saved is refused with unknown_profile, listing the profiles there are.'

  static override examples = ['<%= config.bin %> <%= command.id %> nu-4321', '<%= config.bin %> <%= command.id %> default']

  static override args = {
    name: Args.string({ description: 'Name of a saved profile (see `bula profiles list`).', required: true }),
  }

  async run(): Promise<ProfilesUseResult> {
    const { args, flags } = await this.parse(ProfilesUse)
    const { config, file } = await makeProfileCurrent(args.name)
    this.log(`Profile ${describeProfile(args.name, config.profiles[args.name]!)} is now current.`)
    const inUse = inUseReport(config, flags.profile)
    const note = inUseNote(config, inUse)
    if (note) this.log(note)
    return { configFile: file, current: args.name, inUse }
  }
}
