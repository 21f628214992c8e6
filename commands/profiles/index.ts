import ProfilesList from './list.js'

/** `bula profiles` alone lists them, as `bula profiles list` does. */
export default class Profiles extends ProfilesList {
  static override summary = 'List the saved profiles, their keys masked (as `bula profiles list`).'

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json']
}
