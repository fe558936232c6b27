/**
 * The part of passport 0.7 (a dev dependency without typings) that the tests use: a Passport
 * instance, a strategy registered on it, and `authenticate` with a callback.
 */
declare module 'passport' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export type AuthenticateCallback = (err: any, user?: unknown, info?: unknown, status?: number) => void;
  export class Strategy {
    name?: string;
    authenticate(req: IncomingMessage, options?: unknown): void;
  }
  export class Passport {
    use(strategy: Strategy): this;
    authenticate(name: string, options: { session: boolean }, callback: AuthenticateCallback): (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;
  }
  const passport: Passport & { Passport: typeof Passport };
  export default passport;
}
