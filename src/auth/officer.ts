/** The caller, as proven by a valid token. */
export interface AuthenticatedOfficer {
  id: string;
  clearance: number;
}

export const MIN_CLEARANCE = 0;
export const MAX_CLEARANCE = 10;

declare module 'express-serve-static-core' {
  interface Request {
    officer?: AuthenticatedOfficer;
  }
}
