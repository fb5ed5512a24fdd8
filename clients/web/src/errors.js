// errors.js -- what a person reads when something fails: the service's error.code (decisions
// §2, §13) and the client format's own failures, in plain words. Never the raw message alone.
import { ApiError } from './api.js';
import { FormatError } from './crypto/bytes.js';

const WORDS = {
  network: 'The service could not be reached. Check your connection and try again.',
  invalid_json: 'The app sent a request the service could not read. Reload the page and try again.',
  validation_failed: 'The service did not accept this',
  invalid_cursor: 'The list changed while it was being read. Reload the page.',
  invalid_grant: 'This sign-in request is no longer valid.',
  confirm_code_mismatch: 'The code does not match the one the terminal shows. Check both screens and type it again.',
  unauthenticated: 'You are signed out. Please log in again.',
  token_expired: 'Your session has expired. Please log in again.',
  device_revoked: 'This device has been removed from the account.',
  invalid_credentials: 'The email or password is wrong.',
  forbidden: 'You are not allowed to do this. This page needs an administrator.',
  wrong_caller: 'This can only be done from the web app.',
  quota_exceeded: 'Your storage plan is full. Delete something or ask for a bigger plan.',
  pouch_limit_reached: 'Your plan allows no more pouches.',
  access_denied: 'The sign-in request was denied.',
  not_found: 'Not found. It may have been removed, or it belongs to another account.',
  method_not_allowed: 'The service does not allow this action here.',
  epoch_mismatch: 'The pouch was reset on the server. The page reloads its contents.',
  operation_id_reused: 'This change collided with an earlier one. Please try again.',
  genesis_exists: 'This account has already been set up.',
  genesis_required: 'Set up your account (onboarding) first.',
  email_taken: 'An account with this email already exists. Log in instead.',
  slug_taken: 'Another plan already uses this slug.',
  share_exists: 'A share with this id already exists. Try again.',
  last_admin: 'This is the last administrator; make someone else admin first.',
  already_decided: 'This request has already been approved or denied.',
  key_gen_conflict: 'The pouch keys changed meanwhile (another device rotated them). Reload and try again.',
  expired_token: 'This sign-in request has expired. Start the login again in the terminal.',
  share_unavailable: 'This link no longer works: it has expired, was already used, or was revoked.',
  payload_too_large: 'This is too large to send in one piece.',
  request_timeout: 'The upload was too slow and timed out. Try again.',
  unsupported_media_type: 'The app sent a request in a form the service does not accept.',
  rate_limited: 'Too many requests right now.',
  slow_down: 'Too many requests right now.',
  internal: 'The service hit an internal error.',
  unavailable: 'The service is busy or temporarily unavailable.',
};

export function describeError(e) {
  if (e instanceof ApiError) {
    let text = WORDS[e.code] || e.message || `The service refused this (${e.code}).`;
    if (e.code === 'validation_failed' && e.message) text += `: ${e.message}${e.field ? ` (${e.field})` : ''}.`;
    if (e.code === 'validation_failed' && !e.message) text += '.';
    if (e.retryAfter && ['rate_limited', 'slow_down', 'unavailable'].includes(e.code)) {
      text += ` Try again in ${e.retryAfter} second${e.retryAfter === '1' ? '' : 's'}.`;
    }
    if (e.code === 'quota_exceeded' && e.details?.limit_bytes !== undefined) {
      text += ` (Plan limit ${formatBytes(e.details.limit_bytes)}, in use ${formatBytes(e.details.used_bytes)}.)`;
    }
    if (e.status >= 500 && e.requestId) text += ` (Request id ${e.requestId}.)`;
    return text;
  }
  if (e instanceof FormatError) return `Encrypted data did not check out: ${e.message}.`;
  if (e?.name === 'AbortError') return 'Cancelled.';
  return e?.message || String(e);
}

export function formatBytes(n) {
  if (n === null || n === undefined) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function formatAge(iso) {
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  if (s < 0) return 'just now';
  if (s < 60) return `${s} second${s === 1 ? '' : 's'} ago`;
  if (s < 3600) return `${Math.floor(s / 60)} minute${s < 120 ? '' : 's'} ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} hour${s < 7200 ? '' : 's'} ago`;
  return `${Math.floor(s / 86400)} day${s < 172800 ? '' : 's'} ago`;
}

export const formatTime = (iso) => (iso ? new Date(iso).toLocaleString() : '—');
