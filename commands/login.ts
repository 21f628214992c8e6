import { Flags } from '@oclif/core'
import { BulaClient } from '../src/client/bula-client.js'
import { BaseCommand } from '../src/cli/base-command.js'
import { maskUrlCredentials } from '../src/cli/base-url.js'
import { assertProfileName, saveProfile } from '../src/config/profiles.js'
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
    const configFile = await saveProfile(profileName, { baseUrl: client.baseUrl, apiKey: flags['api-key'] }, { makeCurrent: true })

    this.log(`Logged in as ${this.colors.bold(printable(merchant.name))} (${printable(merchant.mode)} mode) at ${maskUrlCredentials(client.baseUrl)}.`)
    this.log(`Saved profile "${profileName}" in ${configFile}; it is now the current profile.`)
    return { profile: profileName, configFile, baseUrl: client.baseUrl, merchant }
  }
}
