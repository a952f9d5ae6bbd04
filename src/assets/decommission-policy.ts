import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { ConfigurationError, DECOMMISSION_APPROVAL_CONFIG, type DecommissionApprovalConfig } from '../config';
import { TransactionRunner } from '../database';
import { DecommissionPolicyRepository } from './decommission-policy.repository';

/**
 * Whether a decommission takes two officers is the database's policy, not each instance's: an instance
 * whose DECOMMISSION_APPROVAL disagrees with it refuses to start (one set where another was missed, as
 * in a rolling deploy, would decommission alone what the others send for approval), and every decision
 * reads the policy afresh, so `npm run db:decommission-approval` changes it for running instances too.
 */
@Injectable()
export class DecommissionPolicy implements OnApplicationBootstrap {
  constructor(
    private readonly policies: DecommissionPolicyRepository,
    private readonly transactions: TransactionRunner,
    @Inject(DECOMMISSION_APPROVAL_CONFIG) private readonly config: DecommissionApprovalConfig,
  ) {}

  /**
   * After the migrations (at module init): the first instance on a database that is set to a policy
   * writes it; any later one set otherwise refuses to start. One not set follows the database.
   */
  async onApplicationBootstrap(): Promise<void> {
    const { policy } = this.config;
    if (policy === undefined) {
      return;
    }
    const inForce = await this.policies.adopt(policy);
    if (policy !== inForce) {
      throw new ConfigurationError(
        `DECOMMISSION_APPROVAL=${policy} disagrees with the policy in the database (${inForce}): unset DECOMMISSION_APPROVAL to follow the database, ` +
          `or change the policy of every instance with npm run db:decommission-approval -- ${policy}`,
      );
    }
  }

  /** Read at each decision (in its transaction, when one is open): the policy as it is now; none until an instance or the command sets one. */
  async required(): Promise<boolean> {
    return (await this.policies.find(this.transactions.executor())) === 'required';
  }

  /**
   * Runs `decide` with whether approval is required, in one transaction with that read, which the
   * decision's own joins: a change of the policy commits only once it ends (DecommissionPolicyRepository.change),
   * so no decision made under the policy it replaces commits after it.
   */
  underPolicy<T>(decide: (approvalRequired: boolean) => Promise<T>): Promise<T> {
    return this.transactions.run(async () => decide(await this.required()));
  }
}
