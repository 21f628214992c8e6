import { Flags } from '@oclif/core'
import { BaseCommand } from '../src/cli/base-command.js'
import { simulatorPageUrl } from '../src/cli/page-url.js'
import type { DashboardLoginLink } from '../src/schemas/index.js'

export default class Dashboard extends BaseCommand<DashboardLoginLink> {
  static override summary = 'Open the web dashboard in the browser, signed in as the profile\'s merchant.'

  static override description =
    'Asks the simulator for a one-time sign-in link (it works once, for 5 minutes, and holds a random token, never the key) ' +
    'and opens it. A test key opens test data, a live key live data. Prints the link instead with --print, when stdout ' +
    'is not a terminal, or when no browser can be started; with --json it prints the link and its expiry. ' +
    'Anyone else signs in at {base}/dashboard with a secret key.'

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --print',
    '<%= config.bin %> <%= command.id %> --profile live',
  ]

  static override flags = {
    print: Flags.boolean({ description: 'Only print the sign-in link, do not start a browser.' }),
  }

  async run(): Promise<DashboardLoginLink> {
    const { flags } = await this.parse(Dashboard)
    const client = await this.client(flags)
    const link = await client.createDashboardLoginLink()
    if (!this.jsonEnabled()) await this.openOrPrint(simulatorPageUrl(link.url, client.baseUrl, 'url'), flags.print)
    return link
  }
}
