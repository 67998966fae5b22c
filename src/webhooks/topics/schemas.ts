import type { z } from 'zod';
import type { Topic } from '../../shared/topics.ts';
import { ApprovalApproved, ApprovalExpired, ApprovalRejected, ApprovalRequestCreated } from './data/approvals.ts';
import { BuyboxWinnerChanged } from './data/buybox.ts';
import { ProductArchived, ProductCreated, ProductPublished, ProductUpdated } from './data/catalog.ts';
import { OrderCancelled, OrderPlaced } from './data/orders.ts';
import { PaymentCaptured, PaymentRefunded } from './data/payments.ts';
import {
  PayoutCalculated,
  PayoutFailed,
  PayoutPaid,
  PayoutRetryGivenUp,
  PayoutRetryScheduled,
} from './data/payouts.ts';
import { QuoteAccepted, QuoteConverted, QuoteExpired, QuoteRejected, QuoteSent } from './data/quotes.ts';
import { SavedReportDue } from './data/reports.ts';
import {
  ConsentIysPushDue,
  ImpersonationEnded,
  ImpersonationStarted,
  StaffAccepted,
  StaffInvited,
} from './data/security.ts';
import { VendorApplied, VendorApproved, VendorRejected, VendorSuspended } from './data/vendors.ts';

/**
 * The `data` of each topic's envelope: one zod schema per topic, used for the OpenAPI
 * document's `webhooks` section, GET /api/v1/webhooks/topics and the tests that check
 * every emitted payload. order.placed is fixed by SPEC §5.2. Each schema sits next to the
 * builder that both the real operation and the test-webhook sample use (./data/*).
 */
export const topicDataSchemas: Record<Topic, z.ZodType> = {
  'order.placed': OrderPlaced,
  'order.cancelled': OrderCancelled,
  'payment.captured': PaymentCaptured,
  'payment.refunded': PaymentRefunded,
  'product.created': ProductCreated,
  'product.updated': ProductUpdated,
  'product.published': ProductPublished,
  'product.archived': ProductArchived,
  'approval.request.created': ApprovalRequestCreated,
  'approval.approved': ApprovalApproved,
  'approval.rejected': ApprovalRejected,
  'approval.expired': ApprovalExpired,
  'quote.sent': QuoteSent,
  'quote.accepted': QuoteAccepted,
  'quote.rejected': QuoteRejected,
  'quote.converted': QuoteConverted,
  'quote.expired': QuoteExpired,
  'vendor.applied': VendorApplied,
  'vendor.approved': VendorApproved,
  'vendor.rejected': VendorRejected,
  'vendor.suspended': VendorSuspended,
  'payout.calculated': PayoutCalculated,
  'payout.paid': PayoutPaid,
  'payout.failed': PayoutFailed,
  'payout.retry.scheduled': PayoutRetryScheduled,
  'payout.retry.given_up': PayoutRetryGivenUp,
  'buybox.winner_changed': BuyboxWinnerChanged,
  'saved_report.due': SavedReportDue,
  'impersonation.started': ImpersonationStarted,
  'impersonation.ended': ImpersonationEnded,
  'staff.invited': StaffInvited,
  'staff.accepted': StaffAccepted,
  'consent.iys.push_due': ConsentIysPushDue,
};
