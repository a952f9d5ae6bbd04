import { subscribe } from 'node:diagnostics_channel';
import { BlockList, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Loaded into every test process (`node --test --import`): a test file whose process opens a TCP
 * connection to an address off this machine fails, naming the address. A test that subscribes a webhook
 * to a public address, say, would otherwise send signed events to whoever holds it, whenever the machine
 * has a route out.
 */
const thisMachine = new BlockList();
thisMachine.addSubnet('127.0.0.0', 8, 'ipv4');
thisMachine.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');
thisMachine.addAddress('::1', 'ipv6');
thisMachine.addAddress('0.0.0.0', 'ipv4');
thisMachine.addAddress('::', 'ipv6');
for (const address of Object.values(networkInterfaces()).flat()) {
  if (address) {
    thisMachine.addAddress(address.address.split('%')[0], address.family === 'IPv6' ? 'ipv6' : 'ipv4');
  }
}

const offMachine = new Set<string>();

subscribe('net.client.socket', (message) => {
  const { socket } = message as { socket: Socket };
  socket.on('connectionAttempt', (ip: string, port: number, family: number) => {
    if (!thisMachine.check(ip, family === 6 ? 'ipv6' : 'ipv4')) {
      offMachine.add(`${ip}:${port}`);
    }
  });
});

process.on('exit', () => {
  if (offMachine.size > 0) {
    process.stderr.write(`A test connected outside this machine, to ${[...offMachine].join(', ')}: tests reach only servers they run themselves.\n`);
    process.exitCode = 1;
  }
});
