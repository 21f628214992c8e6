import { Flags, ux } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { formatApiError, toErrorReport } from '../../src/cli/error-report.js'
import { formatTime } from '../../src/cli/output.js'
import { assertProfileWritable, saveProfile } from '../../src/config/profiles.js'
import { ApiError } from '../../src/errors.js'
import { TIERS } from '../../src/schemas/enums.js'
import type { SignupResponse } from '../../src/schemas/index.js'

export default class MerchantsSignup extends BaseCommand<SignupResponse> {
  static override summary = 'Sign up a new merchant and print its test keys (shown once).'

  static override description =
    'Needs no API key. With --save-profile the keys are saved as a profile that becomes the current one.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --email owner@kaistore.fj --name "Kai Store" --tier business',
    '<%= config.bin %> <%= command.id %> --email mere@example.fj --name "Mere Tui" --tier individual --save-profile mere',
  ]

  static override flags = {
    email: Flags.string({ description: 'E-mail address of the account.', required: true }),
    name: Flags.string({ description: 'Business or individual name.', required: true }),
    tier: Flags.option({ description: 'Account tier.', options: TIERS, required: true })(),
    'save-profile': Flags.string({ description: 'Save the new keys as this profile and make it current.' }),
  }

  async run(): Promise<SignupResponse> {
    const { flags } = await this.parse(MerchantsSignup)
    // Checked first: the keys are shown once, so the save must not fail after signup.
    if (flags['save-profile']) await assertProfileWritable(flags['save-profile'])
    const client = await this.client(flags)
    const signup = await client.signup({ email: flags.email, name: flags.name, tier: flags.tier })
    const { merchant, keys } = signup

    this.printFields([
      ['id', merchant.id],
      ['name', merchant.name],
      ['email', merchant.email],
      ['tier', merchant.tier],
      ['created', formatTime(merchant.createdAt)],
      ['secret key', keys.secret],
      ['publishable key', keys.publishable],
    ])
    this.printNotice('The keys are shown only once: store them now.')
    if (flags['save-profile']) {
      try {
        const configFile = await saveProfile(
          flags['save-profile'],
          { baseUrl: client.baseUrl, apiKey: keys.secret, publishableKey: keys.publishable },
          { makeCurrent: true },
        )
        this.log(`Saved profile "${flags['save-profile']}" in ${configFile}; it is now the current profile.`)
      } catch (error) {
        // The config changed since the check. Thrown, the failure would take
        // the place of the --json result, the only copy of the keys: it goes
        // to stderr instead, and the exit code still says the save failed.
        if (!(error instanceof ApiError)) throw error
        ux.stderr(formatApiError(error, this.stderrColors))
        process.exitCode = toErrorReport(error).exitCode
      }
    }
    return signup
  }
}
