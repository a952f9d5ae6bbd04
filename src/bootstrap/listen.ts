import type { Server } from 'node:http';
import { createServer, type AddressInfo, type Server as NetServer } from 'node:net';

/**
 * Takes the port before Nest starts, so a taken port fails the start-up at once rather than after
 * the migrations and "successfully started"; the HTTP server then listens on the same socket.
 * Until it does, a connection is closed at once, as a refused one would be, rather than left unanswered.
 */
export function reservePort(host: string, port: number): Promise<NetServer> {
  return new Promise((resolve, reject) => {
    const reserved = createServer((socket) => socket.destroy());
    reserved.once('error', reject);
    reserved.listen({ host, port }, () => resolve(reserved));
  });
}

/** Serves on the reserved socket and gives the address it listens on, e.g. `http://0.0.0.0:3000`. */
export function listenOn(server: Server, reserved: NetServer): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(reserved, () => {
      const { address, family, port } = server.address() as AddressInfo;
      resolve(`http://${family === 'IPv6' ? `[${address}]` : address}:${port}`);
    });
  });
}

/** Every address of the machine: a browser cannot open it, so links name localhost instead. */
const UNSPECIFIED_ADDRESS = /^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/;

/** The address listenOn gives, as a link a person can open on this machine: `http://0.0.0.0:3000` becomes `http://localhost:3000`. */
export function browsableUrl(url: string): string {
  return url.replace(UNSPECIFIED_ADDRESS, 'http://localhost');
}
