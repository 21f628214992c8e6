// The Express receiver of docs/webhooks-receiver.md, copied as a reader copies it and run inside the package (where
// `bula-tools` resolves to the built package), then checked with `bula webhooks check`. As first written it named an
// `app` it never made and answered nothing on success, so every delivery would have timed out.
import { execa } from 'execa'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { freePort } from '../helpers/ports.js'
import path from 'node:path'
import { expect, it } from 'vitest'
import { packageRoot } from '../../src/package-root.js'
import { runCli } from '../helpers/cli.js'

it('the Express receiver of docs/webhooks-receiver.md passes every case of bula webhooks check as written', async () => {
  const docs = await readFile(path.join(packageRoot(), 'docs', 'webhooks-receiver.md'), 'utf8')
  const example = /```js\n(import express[\s\S]*?)```/.exec(docs)?.[1]
  expect(example).toContain('app.listen(4242)')
  const port = await freePort()
  const file = path.join(packageRoot(), 'test-artifacts', `receiver-doc-${process.pid}.mjs`)
  await mkdir(path.dirname(file), { recursive: true })
  await writeFile(file, example!.replace('app.listen(4242)', `app.listen(${port})`))
  const receiver = execa('node', [file], { env: { BULA_WEBHOOK_SECRET: 'whsec_receiver_doc_test' }, reject: false })
  try {
    const url = `http://127.0.0.1:${port}/webhooks`
    // Listening once a request gets any answer.
    await expect.poll(() => fetch(url, { method: 'POST' }).then(() => true, () => false), { timeout: 10_000 }).toBe(true)
    const check = await runCli(['webhooks', 'check', url, '--secret', 'whsec_receiver_doc_test'])
    expect(check.stdout, check.stderr).toContain('All 6 cases passed.')
    expect(check.exitCode).toBe(0)
  } finally {
    receiver.kill()
    await receiver
    await rm(file, { force: true })
  }
})
