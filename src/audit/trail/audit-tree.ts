import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { AUDIT_CONFIG, type AuditConfig, DATABASE_CONFIG, type DatabaseConfig } from '../../config';
import { ResourceNotFoundError, ServiceUnavailableError, ValidationFailedError } from '../../common';
import { nodeKey, TrailRepository } from './trail.repository';
import { resolveSigningKey } from './audit-signing-key';
import { signCheckpoint, verifierKeyOf } from './checkpoint-note';
import { consistencyPlan, decodeFrontier, frontierRoot, inclusionPlan, leafPlan, type ProofPlan, rootPlan, type TreeNode } from './merkle';

export interface InclusionProof {
  leaf_index: number;
  tree_size: number;
  leaf_hash: string;
  inclusion_path: string[];
  root_hash: string;
}

export interface ConsistencyProof {
  first: number;
  second: number;
  consistency_path: string[];
}

/**
 * The audit trail as a Merkle tree that proves itself: signs a checkpoint of it whenever it has grown,
 * at most every AUDIT_CHECKPOINT_INTERVAL_MS, stores it where every instance serves it, and answers
 * inclusion and consistency proofs from the stored subtrees in O(log n) reads.
 */
@Injectable()
export class AuditTree implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('AuditTree');
  private readonly signing;
  private readonly keyName: string;
  readonly verifierKey: string;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly repository: TrailRepository,
    @Inject(AUDIT_CONFIG) private readonly config: AuditConfig,
    @Inject(DATABASE_CONFIG) database: DatabaseConfig,
  ) {
    // Made once the database is reached and migrated (the repository needs it): a start that cannot reach it generates no key.
    this.signing = resolveSigningKey(config, database);
    this.keyName = config.logOrigin;
    this.verifierKey = verifierKeyOf(this.keyName, this.signing.key);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.signingKeyWarning) {
      this.logger.warn(this.config.signingKeyWarning);
    }
    if (this.signing.generatedIn) {
      this.logger.warn(`Checkpoints are signed with a key generated in ${this.signing.generatedIn}; set AUDIT_SIGNING_KEY_FILE to use your own`);
    }
    this.logger.log(`Checkpoint verifier key: ${this.verifierKey}`);
    await this.signIfGrown();
    this.timer = setInterval(() => void this.signIfGrown(), this.config.checkpointIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** Signs the tree as the head has it, when it is larger than the stored checkpoint or that was signed by another key. */
  async signIfGrown(): Promise<void> {
    try {
      const [head, stored] = await Promise.all([this.repository.findChainHead(), this.repository.findCheckpoint()]);
      const size = head?.event_count ?? 0;
      if (stored && (stored.treeSize > size || (stored.treeSize === size && stored.verifierKey === this.verifierKey))) {
        return;
      }
      const root = frontierRoot(decodeFrontier(head?.frontier ?? ''));
      const note = signCheckpoint({ origin: this.config.logOrigin, size, root }, this.keyName, this.signing.key);
      await this.repository.storeCheckpoint({ treeSize: size, verifierKey: this.verifierKey, note });
    } catch (error) {
      this.logger.warn(`could not sign an audit checkpoint: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The latest signed checkpoint, as every instance serves it. */
  async latestCheckpoint(): Promise<{ treeSize: number; note: string }> {
    const stored = await this.repository.findCheckpoint();
    if (!stored) {
      throw new ServiceUnavailableError('No audit checkpoint has been signed yet; retry in a moment');
    }
    return stored;
  }

  async inclusionProof(eventId: number, requestedSize?: number): Promise<InclusionProof> {
    const leafIndex = await this.repository.findLeafIndex(eventId);
    if (leafIndex === undefined) {
      throw new ResourceNotFoundError('AUDIT_EVENT_NOT_FOUND', `Audit event ${eventId} not found`);
    }
    const treeSize = requestedSize ?? (await this.latestCheckpoint()).treeSize;
    await this.assertWithinTree('tree_size', treeSize);
    if (leafIndex >= treeSize) {
      throw new ValidationFailedError(`tree_size ${treeSize} does not include event ${eventId}, leaf ${leafIndex}: ask for a tree_size above ${leafIndex}`);
    }
    const [leaf, path, root] = await this.read([leafPlan(leafIndex), inclusionPlan(leafIndex, treeSize), rootPlan(treeSize)]);
    return { leaf_index: leafIndex, tree_size: treeSize, leaf_hash: leaf[0], inclusion_path: path, root_hash: root[0] };
  }

  async consistencyProof(first: number, second: number): Promise<ConsistencyProof> {
    if (first > second) {
      throw new ValidationFailedError(`first (${first}) must not be greater than second (${second})`);
    }
    await this.assertWithinTree('second', second);
    const [path] = await this.read([consistencyPlan(first, second)]);
    return { first, second, consistency_path: path };
  }

  private async assertWithinTree(field: string, size: number): Promise<void> {
    const treeSize = (await this.repository.findChainHead())?.event_count ?? 0;
    if (size > treeSize) {
      throw new ValidationFailedError(`${field} ${size} is past the end of the tree, which has ${treeSize} events`);
    }
  }

  /** Every plan's hashes from one read of the nodes they all need. */
  private async read(plans: ProofPlan[]): Promise<string[][]> {
    const found = await this.repository.findTreeNodes(plans.flatMap((plan) => plan.nodes));
    const read = (node: TreeNode) => {
      const hash = found.get(nodeKey(node));
      if (hash === undefined) {
        throw new Error(`the audit tree lacks its node at level ${node.level}, index ${node.index}`);
      }
      return hash;
    };
    return plans.map((plan) => plan.hashes(read));
  }
}
