import type { AddressInfo } from "node:net"
import { createServer, type Socket, connect as tcpConnect } from "node:net"

/** A TCP proxy in front of a local server whose connections a test can cut, to play a network that drops. */
export interface TcpProxy {
  /** `host:port` of the proxy. */
  host: string
  /** Connections accepted so far. */
  readonly connections: number
  /** Cuts every open connection now. */
  dropAll(): void
  /** Cuts each open connection as soon as the client sends anything more (a peer that vanished unnoticed). */
  dropOnNextSend(): void
  close(): Promise<void>
}

/** Starts a proxy that forwards every connection to `target` (`http://host:port` or `ws://host:port`). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { hostname, port } = new URL(target)
  const open = new Set<{ client: Socket; upstream: Socket; armed: boolean }>()
  let connections = 0
  const server = createServer((client) => {
    connections++
    const upstream = tcpConnect(Number(port), hostname)
    const pair = { client, upstream, armed: false }
    open.add(pair)
    const cut = () => {
      client.destroy()
      upstream.destroy()
      open.delete(pair)
    }
    client.on("data", (chunk) => {
      if (pair.armed) cut()
      else upstream.write(chunk)
    })
    upstream.on("data", (chunk) => client.write(chunk))
    client.on("close", cut)
    upstream.on("close", cut)
    client.on("error", cut)
    upstream.on("error", cut)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as AddressInfo
  return {
    host: `127.0.0.1:${address.port}`,
    get connections() {
      return connections
    },
    dropAll() {
      for (const pair of [...open]) {
        pair.client.destroy()
        pair.upstream.destroy()
      }
    },
    dropOnNextSend() {
      for (const pair of open) pair.armed = true
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of open) {
          pair.client.destroy()
          pair.upstream.destroy()
        }
        server.close(() => resolve())
      }),
  }
}
