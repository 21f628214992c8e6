import { BaseCommand } from '../../src/cli/base-command.js'
import { verificationFields } from '../../src/cli/fields.js'
import { bulaCommand } from '../../src/cli/launch-command.js'
import type { ApproveVerificationResponse } from '../../src/schemas/index.js'

export default class VerifyApprove extends BaseCommand<ApproveVerificationResponse> {
  static override summary = 'Approve the pending verification and print the live keys (shown once).'

  static override description = 'Acts as the reviewer: approval unlocks live mode and issues the first live key pair.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --json',
  ]

  async run(): Promise<ApproveVerificationResponse> {
    const { flags } = await this.parse(VerifyApprove)
    const approved = await (await this.client(flags)).approveVerification()
    this.printFields([
      ...verificationFields(approved.verification),
      ['live secret key', approved.keys.secret],
      ['live publishable key', approved.keys.publishable],
    ])
    this.printNotice(`The live keys are shown only once: store them now, e.g. \`${bulaCommand('login --api-key sk_live_... --profile live')}\`.`)
    return approved
  }
}
