import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { verificationFields } from '../../src/cli/fields.js'
import type { VerificationResponse } from '../../src/client/bula-client.js'

export default class VerifyReject extends BaseCommand<VerificationResponse> {
  static override description = 'Reject the pending verification as the reviewer would, with a reason the merchant sees.'

  static override examples = ['<%= config.bin %> <%= command.id %> --reason "TIN card photo is blurred"']

  static override flags = {
    reason: Flags.string({ description: 'Why the documents were rejected.', required: true }),
  }

  async run(): Promise<VerificationResponse> {
    const { flags } = await this.parse(VerifyReject)
    const rejected = await (await this.client(flags)).rejectVerification({ reason: flags.reason })
    this.printFields(verificationFields(rejected.verification))
    return rejected
  }
}
