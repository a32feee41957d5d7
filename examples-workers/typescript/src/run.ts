/**
 * What every example worker does when run: configure from the environment the operator injects (BATON_SERVICE,
 * BATON_COMMANDS, the staircases, BATON_RABBITMQ_URI and credentials), start, and stop gracefully on SIGTERM.
 * A missing or malformed variable ends it with exit code 2 and one line per variable.
 */

import { pathToFileURL } from "node:url";
import { BatonWorker, InvalidSettingsError } from "@baton/worker";

export interface ExampleWorker {
  readonly service: string;
  handlers(worker: BatonWorker): BatonWorker;
}

/** Whether the module at `moduleUrl` is the one `node` was started with. */
export function isMain(moduleUrl: string): boolean {
  return process.argv[1] !== undefined && moduleUrl === pathToFileURL(process.argv[1]).href;
}

/** The order a command is about: the instance's business key (the order id), else the instance id. */
export function orderOf(cmd: { businessKey: string | undefined; instanceId: string | undefined }): string {
  return cmd.businessKey?.trim() ? cmd.businessKey : (cmd.instanceId ?? "unknown");
}

export async function run(example: ExampleWorker): Promise<void> {
  let worker: BatonWorker;
  try {
    worker = example.handlers(BatonWorker.fromEnvironment()).stopOnSignals();
  } catch (e) {
    console.error(`${example.service} worker: ${e instanceof InvalidSettingsError ? e.problems.join("; ") : (e as Error).message}`);
    process.exit(2);
  }
  try {
    await worker.start();
  } catch (e) {
    console.error(`${example.service} worker: ${(e as Error).message}`);
    process.exit(1);
  }
  console.error(`INFO  ${example.service} worker consuming ${[...worker.settings.commands, ...worker.settings.subscriptions].map((c) => c.queue).join(", ")}`);
}
