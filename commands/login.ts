import { Flags } from '@oclif/core'
import { BulaClient } from '../src/client/bula-client.js'
import { BaseCommand } from '../src/cli/base-command.js'
import { maskUrlCredentials } from '../src/cli/base-url.js'
import { bulaCommand } from '../src/cli/launch-command.js'
import { assertProfileName, DEFAULT_PROFILE, envValue, loadConfig, profileInUse, profileNamed, saveProfile } from '../src/config/profiles.js'
import type { MerchantMe } from '../src/schemas/index.js'
import { printable } from '../src/terminal-text.js'

export interface LoginResult {
  profile: string
  configFile: string
  baseUrl: string
  merchant: MerchantMe
}

export default class Login extends BaseCommand<LoginResult> {
  static override summary = 'Check an API key and save it as the current profile.'

  static override description =
    'Checks the key with GET /v1/merchants/me, then saves it with the base URL as a profile that becomes the ' +
    'current one. The profile is the one named by --profile or BULA_PROFILE, else the current one, else "default"; ' +
    'its previous keys are replaced. A new profile takes the current profile\'s base URL unless --base-url or ' +
    'BULA_BASE_URL gives one.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --api-key sk_test_...',
    '<%= config.bin %> <%= command.id %> --api-key sk_live_... --profile live',
    '<%= config.bin %> <%= command.id %> --api-key sk_test_... --base-url http://127.0.0.1:5000 --profile staging',
  ]

  static override flags = {
    'api-key': Flags.string({ description: 'Secret API key to save (sk_test_... or sk_live_...).', required: true }),
  }

  async run(): Promise<LoginResult> {
    const { flags } = await this.parse(Login)
    // The key to save is the flag's, never BULA_API_KEY or the old profile's.
    const { baseUrl, profileName } = await this.connection(flags, { allowMissingProfile: true })
    // A name it could not save is refused before the key is checked, not after a call that may fail for another reason.
    assertProfileName(profileName)
    const client = new BulaClient({ baseUrl, apiKey: flags['api-key'], userAgent: this.config.userAgent })
    const merchant = await client.getMe()
    const before = await loadConfig()
    const previous = before.current ?? DEFAULT_PROFILE
    // Where a live key's login sends the reader back to: the profile commands used until now, unless this login replaced it.
    const back = previous !== profileName && profileNamed(before, previous) ? previous : 'NAME'
    const configFile = await saveProfile(profileName, { baseUrl: client.baseUrl, apiKey: flags['api-key'] }, { makeCurrent: true })

    this.log(`Logged in as ${this.colors.bold(printable(merchant.name))} (${printable(merchant.mode)} mode) at ${maskUrlCredentials(client.baseUrl)}.`)
    this.log(`Saved profile "${profileName}" in ${configFile}; it is now the current profile.`)
    // Saving a live key as the current profile is documented, but every command after it acts on live data: that must
    // not pass unnoticed in a walk-through that goes on with test-mode commands.
    // Only when the commands in this shell do use it: BULA_API_KEY, or BULA_PROFILE naming another, still win.
    const usedHere = !envValue(process.env, 'BULA_API_KEY') && profileInUse({ ...before, current: profileName }, undefined).name === profileName
    if (merchant.mode === 'live' && usedHere) {
      this.printNotice(
        `Commands now act on LIVE data: profile "${profileName}" holds a live key. Go back with \`${bulaCommand(`profiles use ${back}`)}\`, ` +
          'or name a profile for one command with --profile.',
      )
    }
    return { profile: profileName, configFile, baseUrl: client.baseUrl, merchant }
  }
}
