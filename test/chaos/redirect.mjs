// Loaded with `node --import` into one `mensajero serve` of the partition test: its TCP connections to the
// ports in CHAOS_REDIRECT ([[from, to], ...]) go to `to` instead (a SilentLink the test can silence), while
// the other processes reach `from` directly. Plain JavaScript: node loads it as is.
import net from 'node:net';

const ports = new Map(JSON.parse(process.env.CHAOS_REDIRECT ?? '[]'));
const connect = net.Socket.prototype.connect;

function redirect(options) {
  if (options && typeof options === 'object' && ports.has(Number(options.port))) {
    options.port = ports.get(Number(options.port));
  }
}

net.Socket.prototype.connect = function (...args) {
  if (Array.isArray(args[0])) redirect(args[0][0]);
  else if (typeof args[0] === 'object') redirect(args[0]);
  else if (ports.has(Number(args[0]))) args[0] = ports.get(Number(args[0]));
  return connect.apply(this, args);
};
