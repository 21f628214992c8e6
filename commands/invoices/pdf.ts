import { Flags } from '@oclif/core'
import { BaseCommand } from '../../src/cli/base-command.js'
import { checkStandardOutput, writeOutput } from '../../src/cli/files.js'
import { invoiceIdArg } from '../../src/cli/invoice-inputs.js'

export interface InvoicePdfResult {
  id: number
  file: string
  bytes: number
}

export default class InvoicesPdf extends BaseCommand<InvoicePdfResult> {
  static override summary = 'Download a sent Invoice\'s PDF, the same file the customer sees.'

  static override description =
    'Writes the PDF to the file named by -o/--out (required): `bula invoices pdf 12 -o INV-0001.pdf`. ' +
    'A draft has no PDF yet (invalid_state). An existing --out file is left alone unless --force is given. ' +
    '--out - writes the PDF to standard output, to redirect or pipe (not to a terminal, and not with --json).'

  static override examples = [
    '<%= config.bin %> <%= command.id %> 12 -o INV-0001.pdf',
    '<%= config.bin %> <%= command.id %> 12 --out invoices/INV-0001.pdf --force --json',
    '<%= config.bin %> <%= command.id %> 12 --out - | lpr',
  ]

  static override args = { id: invoiceIdArg }

  static override flags = {
    out: Flags.string({ char: 'o', description: 'File to write the PDF to (-o FILE); - for standard output.', required: true }),
    force: Flags.boolean({ description: 'Overwrite --out if it exists.' }),
  }

  async run(): Promise<InvoicePdfResult> {
    const { args, flags } = await this.parse(InvoicesPdf)
    checkStandardOutput(flags.out, { given: 'using --out -', json: this.jsonEnabled(), binary: 'The PDF' })
    const pdf = await (await this.client(flags)).getInvoicePdf(args.id)
    await writeOutput(flags.out, pdf, { force: flags.force, param: 'out' })
    this.logWrote(flags.out, `${pdf.length.toLocaleString('en-US')} bytes`)
    return { id: args.id, file: flags.out, bytes: pdf.length }
  }
}
