/** Opening a connection with credentials read afresh, so that a rotated Secret is used on the next reconnect. */

import * as amqp from "amqplib";
import type { BrokerCredentials } from "./config.js";

export type CredentialsProvider = () => BrokerCredentials;

/** Where and as whom, for logs: never the password. */
export function describe(c: BrokerCredentials): string {
  return `${c.addresses.map((a) => `${a.hostname}:${a.port}`).join(",")} vhost '${c.vhost}' as '${c.username}'`;
}

/** A connection to the first of the credentials' nodes that answers. */
export async function openConnection(credentials: CredentialsProvider, connectionName: string): Promise<amqp.ChannelModel> {
  const c = credentials();
  let last: unknown = new Error("no broker address");
  for (const address of c.addresses) {
    try {
      return await amqp.connect(
        {
          protocol: c.protocol,
          hostname: address.hostname,
          port: address.port,
          username: c.username,
          password: c.password,
          vhost: c.vhost,
          heartbeat: 30,
        },
        {
          clientProperties: { connection_name: connectionName },
          ...(c.protocol === "amqps" ? { servername: address.hostname, ...(c.ca === undefined ? {} : { ca: [c.ca] }) } : {}),
        },
      );
    } catch (e) {
      last = e;
    }
  }
  throw new Error(`cannot connect to ${describe(c)}: ${safeMessage(last)}`);
}

/** An error's message with any credentials of a URI masked. */
export function safeMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.replace(/\/\/([^/@:]*):[^/@]*@/g, "//$1:***@");
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
