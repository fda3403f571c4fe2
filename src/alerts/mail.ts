import type { Transporter } from 'nodemailer';

declare module '../context.js' {
  interface AppContext {
    /** The SMTP transports of operator alerts' emails: built by src/app/boot.ts, closed with the context. */
    alertMail: SmtpTransports;
  }
}

/** One transport per SMTP_URL, made with the first email: most processes never send one. */
export class SmtpTransports {
  private readonly transports = new Map<string, Transporter>();

  async transport(smtpUrl: string): Promise<Transporter> {
    let transport = this.transports.get(smtpUrl);
    if (!transport) {
      // Loaded with the first email: nodemailer is some forty modules to start.
      const { createTransport } = await import('nodemailer');
      this.transports.set(smtpUrl, (transport = createTransport(smtpUrl)));
    }
    return transport;
  }

  close(): void {
    for (const t of this.transports.values()) t.close();
    this.transports.clear();
  }
}
