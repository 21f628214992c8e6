import { BaseCommand } from '../../src/cli/base-command.js'
import { maskUrlCredentials } from '../../src/cli/base-url.js'
import { bulaCommand } from '../../src/cli/launch-command.js'
import { environmentNotes, environmentOverrides, inUseNote, inUseReport, type EnvironmentOverrides, type ProfileInUseReport } from '../../src/cli/profile-lines.js'
import { configPath, loadConfig, maskKey } from '../../src/config/profiles.js'

/** A saved profile as listed: its keys masked (`sk_test_…X6bL`), never whole. */
export interface ListedProfile {
  name: string
  current: boolean
  baseUrl: string
  secretKey: string | null
  publishableKey: string | null
}

export interface ProfilesListResult {
  configFile: string
  current: string | null
  /** The profile commands use now: the current one unless --profile or BULA_PROFILE names another. */
  inUse: ProfileInUseReport
  /** BULA_API_KEY (masked) and BULA_BASE_URL, which commands use in place of the profile's key and address. */
  environment: EnvironmentOverrides
  profiles: ListedProfile[]
}

export default class ProfilesList extends BaseCommand<ProfilesListResult> {
  static override summary = 'List the saved profiles, their keys masked.'

  static override description =
    'Reads the config file only (no simulator needed). Marks the current profile, and says when commands would use ' +
    'another: one named by --profile or BULA_PROFILE, or "default" when none is current, and when BULA_API_KEY or ' +
    'BULA_BASE_URL take the place of every profile\'s key or address. Keys show their prefix and ' +
    'last four characters only, with --json too.'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json', 'BULA_PROFILE=nu-4321 <%= config.bin %> <%= command.id %>']

  async run(): Promise<ProfilesListResult> {
    const { flags } = await this.parse(ProfilesList)
    const config = await loadConfig()
    const configFile = configPath()
    const profiles = Object.entries(config.profiles)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, profile]): ListedProfile => ({
        name,
        current: name === config.current,
        baseUrl: maskUrlCredentials(profile.baseUrl),
        secretKey: profile.apiKey ? maskKey(profile.apiKey) : null,
        publishableKey: profile.publishableKey ? maskKey(profile.publishableKey) : null,
      }))
    const inUse = inUseReport(config, flags.profile)
    this.printTable(
      profiles,
      [
        { header: ' ', value: (profile) => (profile.current ? '*' : ' ') },
        { header: 'NAME', value: (profile) => profile.name },
        { header: 'BASE URL', value: (profile) => profile.baseUrl },
        { header: 'SECRET', value: (profile) => profile.secretKey ?? '—' },
        { header: 'PUBLISHABLE', value: (profile) => profile.publishableKey ?? '—' },
      ],
      `No profiles yet in ${configFile}. Save one with \`${bulaCommand('login --api-key sk_test_...')}\`, or start \`${bulaCommand('serve')}\`, which saves its demo keys as "default".`,
    )
    if (profiles.some((profile) => profile.current)) this.log('\n* current profile: commands use it unless --profile or BULA_PROFILE names another.')
    const note = profiles.length === 0 ? undefined : inUseNote(config, inUse)
    if (note) this.log(note)
    const environment = environmentOverrides()
    for (const line of environmentNotes(environment)) this.log(line)
    return { configFile, current: config.current ?? null, inUse, environment, profiles }
  }
}
