// A DNS server on loopback UDP whose answers the test sets (A and AAAA records only), so a webhook
// host name can resolve to a public address at creation and to a private one at delivery.
export function dnsServer() {
  const records = new Map<string, string[]>();
  const name = (buf: Uint8Array, at: number) => {
    const labels: string[] = [];
    let i = at;
    while (buf[i]! > 0) {
      labels.push(new TextDecoder().decode(buf.subarray(i + 1, i + 1 + buf[i]!)));
      i += buf[i]! + 1;
    }
    return { name: labels.join('.').toLowerCase(), end: i + 1 };
  };
  const ipBytes = (ip: string) => (ip.includes(':') ? v6(ip) : ip.split('.').map(Number));
  const v6 = (ip: string) => {
    const [head, tail = ''] = ip.split('::');
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
    return groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255]);
  };
  let socket: { port: number; close(): void };
  const ready = Bun.udpSocket({
    hostname: '127.0.0.1',
    socket: {
      data(sock, buf, port, addr) {
        const q = name(buf, 12);
        const qtype = (buf[q.end]! << 8) | buf[q.end + 1]!;
        const question = buf.subarray(12, q.end + 4);
        const answers = (records.get(q.name) ?? []).filter((ip) => (qtype === 28) === ip.includes(':'));
        const header = [buf[0]!, buf[1]!, 0x81, 0x80, 0, 1, 0, answers.length, 0, 0, 0, 0];
        const body = answers.flatMap((ip) => {
          const rdata = ipBytes(ip);
          return [0xc0, 12, 0, qtype, 0, 1, 0, 0, 0, 0, 0, rdata.length, ...rdata];
        });
        sock.send(new Uint8Array([...header, ...question, ...body]), port, addr);
      },
    },
  }).then((s) => (socket = s));
  return {
    ready,
    get server() {
      return `127.0.0.1:${socket.port}`;
    },
    set: (host: string, ips: string[]) => records.set(host.toLowerCase(), ips),
    stop: () => socket.close(),
  };
}
