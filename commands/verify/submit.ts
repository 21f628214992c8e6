import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { verificationFields } from '../../src/cli/fields.js'
import { readImageAsDataUrl } from '../../src/cli/image-file.js'
import type { VerificationResponse } from '../../src/client/bula-client.js'

export default class VerifySubmit extends BaseCommand<VerificationResponse> {
  static override summary = 'Submit verification documents for review.'

  static override description =
    'Live mode needs the TIN and a photo of the TIN card, plus business registration (business accounts) ' +
    'or personal ID (individual accounts). Images are PNG or JPEG files, sent as data URLs.'

  static override examples = [
    '<%= config.bin %> <%= command.id %> --tin 123456789 --tin-card-photo tin.png --business-registration registration.jpg',
    '<%= config.bin %> <%= command.id %> --tin 123-456-789 --tin-card-photo tin.jpg --personal-id passport.png',
  ]

  static override flags = {
    tin: Flags.string({ description: 'Fiji TIN, 9 digits (dashes and spaces allowed).', required: true }),
    'tin-card-photo': Flags.file({ description: 'Photo of the TIN card (PNG or JPEG).', required: true }),
    'business-registration': Flags.file({
      description: 'Business registration document (PNG or JPEG); business accounts.',
      exclusive: ['personal-id'],
    }),
    'personal-id': Flags.file({ description: 'Personal ID document (PNG or JPEG); individual accounts.' }),
  }

  async run(): Promise<VerificationResponse> {
    const { flags } = await this.parse(VerifySubmit)
    const optionalImage = (file: string | undefined, flag: string) =>
      file === undefined ? undefined : readImageAsDataUrl(file, flag)
    const [tinCardPhoto, businessRegistration, personalId] = await Promise.all([
      readImageAsDataUrl(flags['tin-card-photo'], 'tin-card-photo'),
      optionalImage(flags['business-registration'], 'business-registration'),
      optionalImage(flags['personal-id'], 'personal-id'),
    ])
    const client = await this.client(flags)
    const response = await client.submitVerification({ tin: flags.tin, tinCardPhoto, businessRegistration, personalId })
    this.printFields(verificationFields(response.verification))
    return response
  }
}
