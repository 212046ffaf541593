import { randomBytes, timingSafeEqual } from "node:crypto";
import type { PrismaClient } from "@warden/db";
import type { Logger } from "pino";
import { hashPassword } from "../auth/password.js";

/** Options of {@link BootstrapGate.init}. */
export interface BootstrapOptions {
  /** WARDEN_ADMIN_USER / WARDEN_ADMIN_PASSWORD, when set. */
  readonly admin?: { readonly username: string; readonly password: string };
}

/**
 * First run: when no operator exists, creates the admin from the environment, or prints
 * a one-time token that `auth.bootstrap` exchanges for the first admin account. The token
 * lives in this process only and dies with the first admin.
 */
export class BootstrapGate {
  private token: string | null = null;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly logger: Logger,
  ) {}

  /** True while the server waits for its first admin. */
  get open(): boolean {
    return this.token !== null;
  }

  async init(options: BootstrapOptions = {}): Promise<void> {
    if ((await this.prisma.operator.count()) > 0) return;
    if (options.admin) {
      try {
        await this.createAdmin(options.admin.username, options.admin.password);
      } catch (error) {
        // Instances deployed together all saw no operator; the first insert wins and the
        // others find the username taken. Any other failure is real.
        if ((error as { code?: string }).code !== "P2002") throw error;
        this.logger.info(
          { username: options.admin.username },
          "bootstrap: another instance created the admin operator first",
        );
        return;
      }
      this.logger.info(
        { username: options.admin.username },
        "bootstrap: admin operator created from the environment",
      );
      return;
    }
    this.token = randomBytes(24).toString("base64url");
    // Printed on purpose, once: the operator who started the server claims it.
    this.logger.warn(
      { bootstrapToken: this.token },
      "no operator exists: call auth.bootstrap with this one-time token, or set WARDEN_ADMIN_USER and WARDEN_ADMIN_PASSWORD",
    );
  }

  /** Exchanges the one-time token for the first admin; false when it does not match. */
  async claim(token: string, username: string, password: string): Promise<boolean> {
    const expected = this.token;
    if (expected === null || token.length !== expected.length) return false;
    if (!timingSafeEqual(Buffer.from(token), Buffer.from(expected))) return false;
    this.token = null;
    if ((await this.prisma.operator.count()) > 0) return false;
    await this.createAdmin(username, password);
    return true;
  }

  private async createAdmin(username: string, password: string): Promise<void> {
    await this.prisma.operator.create({
      data: { username, passwordHash: await hashPassword(password), role: "admin" },
      select: { id: true },
    });
  }
}
