import { BaseCommand } from '../../src/cli/base-command.js'
import { verificationFields } from '../../src/cli/fields.js'
import type { VerificationResponse } from '../../src/client/bula-client.js'

export default class VerifyStatus extends BaseCommand<VerificationResponse> {
  static override description = 'Show where the merchant\'s verification (needed for live mode) stands.'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']

  async run(): Promise<VerificationResponse> {
    const { flags } = await this.parse(VerifyStatus)
    const response = await (await this.client(flags)).getVerification()
    this.printFields(verificationFields(response.verification))
    return response
  }
}
