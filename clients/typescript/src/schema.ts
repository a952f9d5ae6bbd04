// Generated from the service's OpenAPI document by openapi-typescript: `npm run client:generate`. Do not edit.
export interface paths {
    "/v1/audit/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List audit events in chain order, newest first (clearance 7 or higher) */
        get: operations["AuditController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow the audit trail live, as Server-Sent Events (clearance 7 or higher)
         * @description Each event as `id: <event id>`, `event: audit`, `data: <the event as in the listing>`, oldest first, filtered as the listing is. Last-Event-ID (or after) resumes after that event: what was missed is replayed first, then events follow as they are placed, from any instance, with no gap and no duplicate. A comment line every 15 s keeps the connection open; a client that stops reading is disconnected; at most 5 streams per officer on an instance (429). An instance that shuts down ends its streams: reconnect with Last-Event-ID.
         */
        get: operations["AuditController_stream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Walk the audit hash chain and report whether it is intact (clearance 7 or higher)
         * @description Reads the whole chain in batches: the time it takes grows with the number of events.
         */
        get: operations["AuditController_verify"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/checkpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The latest signed checkpoint of the audit tree (clearance 7 or higher)
         * @description A C2SP tlog-checkpoint in a signed note (Ed25519): origin, tree size, root hash (base64), a blank line, the signature line. Every instance serves the same one.
         */
        get: operations["AuditController_checkpoint"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/checkpoint/verifier-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The C2SP verifier key that checks the checkpoints' signature (clearance 7 or higher) */
        get: operations["AuditController_verifierKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/events/{id}/inclusion-proof": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** RFC 9162 proof that the event is in the tree of tree_size events (clearance 7 or higher) */
        get: operations["AuditController_inclusionProof"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/consistency-proof": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** RFC 9162 proof that the tree of second events extends the tree of first events (clearance 7 or higher) */
        get: operations["AuditController_consistencyProof"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/fleet/star-destroyers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List fleet vessels, ordered by id
         * @description Any valid token. Optionally filtered by sector; paged by limit and page, or by limit and the keyset cursor after.
         */
        get: operations["FleetController_listStarDestroyers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/assets/{asset_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an asset record, active or decommissioned (clearance 7 or higher) */
        get: operations["AssetsController_findOne"];
        put?: never;
        post?: never;
        /**
         * Decommission an asset (clearance 7 or higher)
         * @description Removes an active asset from the active records. Checks run in order: token (401), clearance (403), input (400), asset active (404). Every attempt is audited. With DECOMMISSION_APPROVAL=required it opens a decommission request instead (202), which the officer named in authorized_by approves with their own token: authorized_by must then be that officer's token subject, not the caller's (422), and an asset with a pending request gets 409.
         */
        delete: operations["AssetsController_decommission"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/assets/{asset_id}/recommission": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Recommission a decommissioned asset (clearance 7 or higher)
         * @description Returns a decommissioned asset to the active records; its earlier decommission stays in the audit trail. Checks run in order: token (401), clearance (403), input (400), asset exists (404), asset decommissioned (409). Every attempt is audited.
         */
        post: operations["AssetsController_recommission"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/assets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List assets, ordered by asset_id (clearance 7 or higher) */
        get: operations["AssetsController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/decommission-requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List decommission requests, newest first (clearance 7 or higher)
         * @description Pending requests past their expiry are marked expired (and audited) before the page is read. awaiting=me: the pending requests the caller is named to decide.
         */
        get: operations["DecommissionRequestsController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/decommission-requests/{request_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a decommission request (clearance 7 or higher)
         * @description The Location of a DELETE answered 202. A pending request past its expiry is marked expired (and audited) first.
         */
        get: operations["DecommissionRequestsController_findOne"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/decommission-requests/{request_id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a decommission request: the officer it names as authorized_by (clearance 7 or higher)
         * @description Decommissions the asset as a direct DELETE does, and marks the request approved, in one transaction; of concurrent approvals exactly one succeeds. Checks run in order: token (401), clearance (403), request id (400), request exists (404), caller is authorized_by (403), request pending (409), asset active (404). Every attempt is audited.
         */
        post: operations["DecommissionRequestsController_approve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/decommission-requests/{request_id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Reject a decommission request: the officer it names as authorized_by (clearance 7 or higher)
         * @description The asset stays active. Checks run in order: token (401), clearance (403), request id (400), request exists (404), caller is authorized_by (403), request pending (409). Every attempt is audited.
         */
        post: operations["DecommissionRequestsController_reject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/decommission-requests/{request_id}/withdraw": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Withdraw a decommission request: the officer who made it (clearance 7 or higher)
         * @description The asset stays active. Checks run in order: token (401), clearance (403), request id (400), request exists (404), caller is requested_by (403), request pending (409). Every attempt is audited.
         */
        post: operations["DecommissionRequestsController_withdraw"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up */
        get: operations["HealthController_live"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The service can reach its database and its rate-limit store, trusts a JWKS not too old, its clock agrees with the database's, its audit events find their place in time, and it is not shutting down */
        get: operations["HealthController_ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics: requests by route and status, decommission outcomes, audit events, database pool, process
         * @description Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set, and is closed in production until it is.
         */
        get: operations["MetricsController_scrape"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AuditDecisionDetailsDto: {
            /**
             * Format: uuid
             * @description The decommission request the decision belongs to, when DECOMMISSION_APPROVAL=required
             * @example 6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f
             */
            request_id?: string;
            /** @example Damaged beyond repair during the Battle of Yavin */
            reason: string;
            /** @example Grand Moff Tarkin */
            authorized_by: string;
        };
        AuditEventDto: {
            /**
             * Format: int64
             * @description Position in the audit chain
             * @example 42
             */
            id: number;
            /**
             * Format: date-time
             * @description UTC, to the millisecond.
             * @example 2026-11-21T10:15:30.000Z
             */
            occurred_at: string;
            /**
             * @example asset.decommission
             * @enum {string}
             */
            action: "auth.authenticate" | "asset.decommission" | "asset.recommission" | "asset.read" | "audit.read" | "audit.verify" | "decommission.request" | "decommission.approve" | "decommission.reject" | "decommission.withdraw" | "decommission.expire" | "decommission.read";
            /** @enum {string} */
            outcome: "allowed" | "denied";
            /**
             * @description Why it was denied; null when allowed.
             * @enum {string|null}
             */
            reason: "TOKEN_MISSING" | "TOKEN_INVALID" | "TOKEN_EXPIRED" | "CLEARANCE_INSUFFICIENT" | "ASSET_NOT_FOUND" | "ASSET_NOT_DECOMMISSIONED" | "RATE_LIMITED" | "AUTHORIZED_BY_IS_CALLER" | "DECOMMISSION_REQUEST_PENDING" | "DECOMMISSION_REQUEST_NOT_FOUND" | "NOT_AUTHORIZING_OFFICER" | "NOT_REQUESTER" | "DECOMMISSION_REQUEST_NOT_PENDING" | "DECOMMISSION_REQUEST_EXPIRED" | null;
            /**
             * @description Token subject; null when no valid token was given.
             * @example officer-7
             */
            actor: string | null;
            /**
             * Format: int32
             * @example 7
             */
            actor_clearance: number | null;
            /**
             * @description As the request named it, valid or not.
             * @example TIE-0001
             */
            asset_id: string | null;
            /** @example 0f6f3f0e-6a53-4d1a-9d56-2b1b8d1c1e7a */
            request_id: string;
            /** @example 127.0.0.1 */
            ip: string | null;
            /** @example DELETE */
            method: string;
            /** @example /v1/assets/TIE-0001 */
            path: string;
            /**
             * @description hash of the event before it in the chain
             * @example c3ab8ff13720e8ad9047dd39466b3c8974e592c2fa383d4a3960714caef0c4f2
             */
            prev_hash: string;
            /** @description An allowed decommission's or recommission's reason and authorising officer, as the request gave them (with its request_id in a decommission request's events); null in other events */
            details: components["schemas"]["AuditDecisionDetailsDto"] | null;
            /**
             * @description SHA-256 (hex) of the JSON array of the fields above from id to prev_hash, in their order here
             * @example 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
             */
            hash: string;
            /**
             * @description RFC 9162 leaf hash (base64): SHA-256 of 0x00 and the UTF-8 JSON array of the fields from id to details, in their order here
             * @example n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=
             */
            leaf_hash: string;
        };
        AuditEventPageDto: {
            events: components["schemas"]["AuditEventDto"][];
            /**
             * Format: int64
             * @description Every item matching the filter, across all pages; null on a page asked for with cursor, which counts nothing.
             * @example 14
             */
            total_count: number | null;
            /**
             * Format: int32
             * @description The page number; null on a page asked for with cursor.
             * @example 1
             */
            page: number | null;
            /**
             * Format: int32
             * @description The effective page size.
             * @example 10
             */
            per_page: number;
            /**
             * @description Pass as cursor for the next (older) page; null on the last page.
             * @example ZTQy
             */
            next_cursor: string | null;
        };
        AuditEventListResponseDto: {
            /** @enum {string} */
            status: "success";
            data: components["schemas"]["AuditEventPageDto"];
        };
        ErrorResponseDto: {
            /**
             * @example error
             * @enum {string}
             */
            status: "error";
            /** @example Asset not found or clearance insufficient */
            message: string;
            /** @example ASSET_ACCESS_DENIED */
            error_code: string;
        };
        AssetDisagreementDto: {
            /** @example TIE-0001 */
            asset_id: string;
            /**
             * Format: int64
             * @description The allowed decommission or recommission event the row disagrees with
             * @example 57
             */
            event_id: number;
            /**
             * @description The fields that disagree
             * @example [
             *       "authorized_by"
             *     ]
             */
            fields: ("status" | "decommission_reason" | "authorized_by" | "decommissioned_at")[];
        };
        AuditChainVerificationDto: {
            /** @enum {string} */
            state: "intact" | "broken";
            /**
             * Format: int64
             * @description Events in the chain, as its head counts them
             * @example 1204
             */
            length: number;
            /**
             * @description SHA-256 (hex) of the last event, as the chain head records it. Keep it elsewhere to detect a rewrite of the whole chain
             * @example 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
             */
            head_hash: string;
            /**
             * Format: int64
             * @description Only when broken: the first event at fault
             * @example 57
             */
            first_broken_event_id?: number;
            /**
             * @description Only when broken. HASH_MISMATCH: its fields no longer give its hash: it was changed, or moved to another id. LINK_MISMATCH: it does not follow the event before it: an event was deleted or inserted before it. PAST_HEAD: it lies past the end of the chain: it was added outside the service. HEAD_MISMATCH: the chain head names it as the last event, but the chain ends elsewhere: events were deleted from the end, or the head was changed. LEAF_MISMATCH: its fields (its details included) no longer give its leaf hash, or it is not at its place in the tree: it was changed. TREE_MISMATCH: the tree's right edge kept beside the head does not match the events' leaves: the tree was changed.
             * @enum {string}
             */
            problem?: "HASH_MISMATCH" | "LINK_MISMATCH" | "PAST_HEAD" | "HEAD_MISMATCH" | "LEAF_MISMATCH" | "TREE_MISMATCH";
            /** @description Only when the chain and tree are intact but some asset rows disagree with the allowed decommission or recommission event that recorded them */
            disagreeing_assets?: components["schemas"]["AssetDisagreementDto"][];
        };
        AuditChainVerificationResponseDto: {
            /** @enum {string} */
            status: "success";
            data: components["schemas"]["AuditChainVerificationDto"];
        };
        InclusionProofDto: {
            /**
             * Format: int64
             * @description The event's zero-based position in the tree
             * @example 0
             */
            leaf_index: number;
            /**
             * Format: int64
             * @example 1
             */
            tree_size: number;
            /**
             * @description The event's RFC 9162 leaf hash (base64)
             * @example n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=
             */
            leaf_hash: string;
            /**
             * @description RFC 9162 inclusion path, from the leaf up (base64 hashes)
             * @example []
             */
            inclusion_path: string[];
            /**
             * @description The root of the tree of tree_size events (base64)
             * @example n4bQgYhMfWWaL+qgxVrQFaO/TxsrC4Is0V1sFbDwCgg=
             */
            root_hash: string;
        };
        InclusionProofResponseDto: {
            /** @enum {string} */
            status: "success";
            data: components["schemas"]["InclusionProofDto"];
        };
        ConsistencyProofDto: {
            /**
             * Format: int64
             * @example 1
             */
            first: number;
            /**
             * Format: int64
             * @example 1
             */
            second: number;
            /**
             * @description RFC 9162 consistency path (base64 hashes); empty when first equals second
             * @example []
             */
            consistency_path: string[];
        };
        ConsistencyProofResponseDto: {
            /** @enum {string} */
            status: "success";
            data: components["schemas"]["ConsistencyProofDto"];
        };
        VesselDto: {
            /**
             * @description A short letter prefix, a hyphen and a number.
             * @example ISD-001
             */
            id: string;
            /** @example Devastator */
            name: string;
            /** @example Imperial I-class */
            class: string;
            /** @example 1600 meters */
            length: string;
            /**
             * Format: int32
             * @example 37085
             */
            crew: number;
            /** @example Captain Piett */
            commander: string;
            /** @enum {string} */
            sector: "Outer Rim" | "Mid Rim" | "Inner Rim" | "Core Worlds";
            /** @example operational */
            status: string;
        };
        VesselPageDto: {
            vessels: components["schemas"]["VesselDto"][];
            /**
             * Format: int64
             * @description Every item matching the filter, across all pages.
             * @example 14
             */
            total_count: number;
            /**
             * Format: int32
             * @description The page number; null on a page asked for with after.
             * @example 1
             */
            page: number | null;
            /**
             * Format: int32
             * @description The effective page size.
             * @example 10
             */
            per_page: number;
            /**
             * @description The id of the last vessel of this page when more follow, to pass as after; null on the last page.
             * @example ISD-010
             */
            next_cursor: string | null;
        };
        VesselListResponseDto: {
            /** @enum {string} */
            status: "success";
            data: components["schemas"]["VesselPageDto"];
        };
        DecommissionAssetDto: {
            /** @example Damaged beyond repair during the Battle of Yavin */
            reason: string;
            /** @example Grand Moff Tarkin */
            authorized_by: string;
        };
        DecommissionedAssetDto: {
            /** @example TIE-0001 */
            asset_id: string;
            /**
             * @description Free text naming the kind of asset.
             * @example vehicle
             */
            asset_type: string;
            /** @example TK-421 */
            former_pilot: string;
            /** @example Damaged beyond repair during the Battle of Yavin */
            decommission_reason: string;
            /**
             * Format: date-time
             * @description ISO 8601, UTC.
             * @example 2026-11-21T10:15:30.000Z
             */
            decommissioned_at: string;
            /** @example Grand Moff Tarkin */
            authorized_by: string;
        };
        DecommissionResponseDto: {
            /** @enum {string} */
            status: "success";
            /** @example Asset TIE-0001 decommissioned successfully */
            message: string;
            data: components["schemas"]["DecommissionedAssetDto"];
        };
        DecommissionRequestDto: {
            /**
             * Format: uuid
             * @example 6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f
             */
            request_id: string;
            /** @example TIE-0001 */
            asset_id: string;
            /**
             * @example pending
             * @enum {string}
             */
            state: "pending" | "approved" | "rejected" | "withdrawn" | "expired";
            /**
             * @description The token subject who asked.
             * @example officer-7
             */
            requested_by: string;
            /**
             * @description The token subject of the officer who may approve or reject it.
             * @example officer-9
             */
            authorized_by: string;
            /** @example Damaged beyond repair during the Battle of Yavin */
            reason: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:15:30.000Z
             */
            created_at: string;
            /**
             * Format: date-time
             * @description Past this instant it can no longer be approved.
             * @example 2026-11-22T10:15:30.000Z
             */
            expires_at: string;
            /**
             * Format: date-time
             * @description When it was approved, rejected or withdrawn, or when it expired; null while pending.
             * @example null
             */
            decided_at: string | null;
            /**
             * @description Who approved, rejected or withdrew it; null while pending and once expired.
             * @example null
             */
            decided_by: string | null;
        };
        DecommissionRequestResponseDto: {
            /** @enum {string} */
            status: "success";
            data: components["schemas"]["DecommissionRequestDto"];
        };
        RecommissionAssetDto: {
            /** @example Damaged beyond repair during the Battle of Yavin */
            reason: string;
            /** @example Grand Moff Tarkin */
            authorized_by: string;
        };
        AssetDto: {
            /** @example TIE-0001 */
            asset_id: string;
            /** @example vehicle */
            asset_type: string;
            /** @example TK-421 */
            former_pilot: string;
            /** @enum {string} */
            status: "active" | "decommissioned";
            /** @example null */
            decommission_reason: string | null;
            /**
             * Format: date-time
             * @example null
             */
            decommissioned_at: string | null;
            /** @example null */
            authorized_by: string | null;
        };
        RecommissionResponseDto: {
            /** @enum {string} */
            status: "success";
            /** @example Asset TIE-0001 recommissioned successfully */
            message: string;
            data: components["schemas"]["AssetDto"];
        };
        AssetResponseDto: {
            /** @enum {string} */
            status: "success";
            data: components["schemas"]["AssetDto"];
        };
        AssetPageDto: {
            assets: components["schemas"]["AssetDto"][];
            /**
             * Format: int64
             * @description Every item matching the filter, across all pages.
             * @example 14
             */
            total_count: number;
            /**
             * Format: int32
             * @example 1
             */
            page: number;
            /**
             * Format: int32
             * @description The effective page size.
             * @example 10
             */
            per_page: number;
        };
        AssetListResponseDto: {
            /** @enum {string} */
            status: "success";
            data: components["schemas"]["AssetPageDto"];
        };
        DecommissionRequestPageDto: {
            requests: components["schemas"]["DecommissionRequestDto"][];
            /**
             * Format: int64
             * @description Every item matching the filter, across all pages; null on a page asked for with cursor, which counts nothing.
             * @example 14
             */
            total_count: number | null;
            /**
             * Format: int32
             * @description The page number; null on a page asked for with cursor.
             * @example 1
             */
            page: number | null;
            /**
             * Format: int32
             * @description The effective page size.
             * @example 10
             */
            per_page: number;
            /**
             * @description Pass as cursor for the next (older) page; null on the last page.
             * @example ZTQy
             */
            next_cursor: string | null;
        };
        DecommissionRequestListResponseDto: {
            /** @enum {string} */
            status: "success";
            data: components["schemas"]["DecommissionRequestPageDto"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The caller's X-Request-Id when it sent a sane one, otherwise a generated UUID */
        "X-Request-Id": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    AuditController_list: {
        parameters: {
            query?: {
                /** @description The maximum number of items to return. */
                limit?: number;
                /** @description The page to return, counting from 1; a page past the end is empty. */
                page?: number;
                outcome?: "allowed" | "denied";
                asset_id?: string;
                /** @description The token subject who acted. */
                actor?: string;
                action?: "auth.authenticate" | "asset.decommission" | "asset.recommission" | "asset.read" | "audit.read" | "audit.verify" | "decommission.request" | "decommission.approve" | "decommission.reject" | "decommission.withdraw" | "decommission.expire" | "decommission.read";
                /** @description Events that occurred at or after this instant (ISO 8601 with an offset). */
                since?: string;
                /** @description Events that occurred before this instant (ISO 8601 with an offset). */
                until?: string;
                /** @description Keyset cursor: the previous page's next_cursor; the page holds the matching events before that page's last. Any depth costs what the first page does, and events appended meanwhile never shift it. Not together with page, the slow path. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit events, newest first, and the count of every match */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEventListResponseDto"];
                };
            };
            /** @description Invalid outcome, asset_id, limit or page (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "outcome must be one of the following values: allowed, denied",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (CLEARANCE_INSUFFICIENT) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AuditController_stream: {
        parameters: {
            query?: {
                outcome?: "allowed" | "denied";
                asset_id?: string;
                /** @description The token subject who acted. */
                actor?: string;
                action?: "auth.authenticate" | "asset.decommission" | "asset.recommission" | "asset.read" | "audit.read" | "audit.verify" | "decommission.request" | "decommission.approve" | "decommission.reject" | "decommission.withdraw" | "decommission.expire" | "decommission.read";
                /** @description Events that occurred at or after this instant (ISO 8601 with an offset). */
                since?: string;
                /** @description Events that occurred before this instant (ISO 8601 with an offset). */
                until?: string;
                /** @description Resume after this event id, as the Last-Event-ID header does (which wins): the missed events are replayed first. Without either, the stream starts with the next event. */
                after?: number;
            };
            header?: {
                /** @description The id of the last event received */
                "Last-Event-ID"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The stream of audit events */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description Invalid filter, after or Last-Event-ID (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "since must be an ISO 8601 instant with an offset, e.g. 2026-11-21T10:15:30Z",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (CLEARANCE_INSUFFICIENT) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AuditController_verify: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The chain was walked: intact, or broken at the event named */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditChainVerificationResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (CLEARANCE_INSUFFICIENT) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AuditController_checkpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The note exactly as signed */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; charset=utf-8": string;
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (CLEARANCE_INSUFFICIENT) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AuditController_verifierKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description <key name>+<key id, 8 hex digits>+<base64 of 0x01 and the Ed25519 public key> */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; charset=utf-8": string;
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (CLEARANCE_INSUFFICIENT) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AuditController_inclusionProof: {
        parameters: {
            query?: {
                /** @description The tree to prove inclusion in; by default the latest checkpoint's */
                tree_size?: number;
            };
            header?: never;
            path: {
                /** @description The event id */
                id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The path from the leaf to the root of the tree of tree_size events */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InclusionProofResponseDto"];
                };
            };
            /** @description A bad id or tree_size, past the tree or not including the event (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "tree_size 90 is past the end of the tree, which has 57 events",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (CLEARANCE_INSUFFICIENT) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description No event has this id (AUDIT_EVENT_NOT_FOUND) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Audit event 42 not found",
                     *       "error_code": "AUDIT_EVENT_NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AuditController_consistencyProof: {
        parameters: {
            query: {
                /** @description The size of the older tree */
                first: number;
                /** @description The size of the newer tree, at least first */
                second: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The consistency path from the tree of first events to that of second */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsistencyProofResponseDto"];
                };
            };
            /** @description first or second missing or bad, first above second, or second past the tree (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "second 90 is past the end of the tree, which has 57 events",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (CLEARANCE_INSUFFICIENT) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    FleetController_listStarDestroyers: {
        parameters: {
            query?: {
                /** @description The maximum number of items to return. */
                limit?: number;
                /** @description The page to return, counting from 1; a page past the end is empty. */
                page?: number;
                /** @description Filters by galactic sector. */
                sector?: "Outer Rim" | "Mid Rim" | "Inner Rim" | "Core Worlds";
                /** @description Keyset cursor: the vessels whose id comes after this one, in id order (within the sector, when one is given). Pass the previous page's next_cursor; any depth costs what the first page does. Not together with page. */
                after?: string;
            };
            header?: {
                /** @description An ETag of an earlier answer, or a list of them: 304 while that page is unchanged. */
                "If-None-Match"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of vessels, ordered by id, the count of every match, and the cursor of the next page */
            200: {
                headers: {
                    /** @description Strong; changes with any write to the vessels. */
                    ETag?: string;
                    /** @description The client may keep the page, and must revalidate it on every use */
                    "Cache-Control"?: "private, no-cache";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VesselListResponseDto"];
                };
            };
            /** @description The page named by If-None-Match is unchanged; no body. */
            304: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid limit, page, after or sector, page and after together, or an If-None-Match over 1024 characters (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "limit must be a whole number from 1 to 100",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AssetsController_findOne: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Three capital letters, a hyphen, four digits. */
                asset_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The asset record, with its status and decommission fields */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssetResponseDto"];
                };
            };
            /** @description Invalid asset id (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "asset_id must match ^[A-Z]{3}-[0-9]{4}$",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (ASSET_ACCESS_DENIED) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Asset not found or clearance insufficient",
                     *       "error_code": "ASSET_ACCESS_DENIED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description No asset with that id, active or not (ASSET_NOT_FOUND) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Asset TIE-9999 not found",
                     *       "error_code": "ASSET_NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AssetsController_decommission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Three capital letters, a hyphen, four digits. */
                asset_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DecommissionAssetDto"];
            };
        };
        responses: {
            /** @description Decommissioned: the asset and its decommission fields as now stored */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecommissionResponseDto"];
                };
            };
            /** @description DECOMMISSION_APPROVAL=required: a pending decommission request; the asset stays active until authorized_by approves it */
            202: {
                headers: {
                    /** @description The request: /v1/decommission-requests/6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f */
                    Location?: string;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecommissionRequestResponseDto"];
                };
            };
            /** @description Invalid asset id or body (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "reason must not be blank",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (ASSET_ACCESS_DENIED) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Asset not found or clearance insufficient",
                     *       "error_code": "ASSET_ACCESS_DENIED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description No active asset with that id (ASSET_ACCESS_DENIED) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Asset not found or clearance insufficient",
                     *       "error_code": "ASSET_ACCESS_DENIED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description DECOMMISSION_APPROVAL=required: the asset has a pending request, named in the message (DECOMMISSION_REQUEST_PENDING) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Asset TIE-0001 already has a pending decommission request: 6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f",
                     *       "error_code": "DECOMMISSION_REQUEST_PENDING"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Body over 16 KB (PAYLOAD_TOO_LARGE) */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Request body exceeds the 16 KB limit",
                     *       "error_code": "PAYLOAD_TOO_LARGE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Body sent with a Content-Type other than application/json (UNSUPPORTED_MEDIA_TYPE) */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Request body must be application/json",
                     *       "error_code": "UNSUPPORTED_MEDIA_TYPE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description DECOMMISSION_APPROVAL=required: authorized_by names the caller (AUTHORIZED_BY_IS_CALLER) */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "authorized_by must name another officer than the caller: a decommission needs a second officer",
                     *       "error_code": "AUTHORIZED_BY_IS_CALLER"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AssetsController_recommission: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Three capital letters, a hyphen, four digits. */
                asset_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecommissionAssetDto"];
            };
        };
        responses: {
            /** @description Recommissioned: the asset record, active again */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RecommissionResponseDto"];
                };
            };
            /** @description Invalid asset id or body (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "reason must not be blank",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (ASSET_ACCESS_DENIED) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Asset not found or clearance insufficient",
                     *       "error_code": "ASSET_ACCESS_DENIED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description No asset with that id (ASSET_ACCESS_DENIED) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Asset not found or clearance insufficient",
                     *       "error_code": "ASSET_ACCESS_DENIED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The asset is active (ASSET_NOT_DECOMMISSIONED) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Asset is active; only a decommissioned asset can be recommissioned",
                     *       "error_code": "ASSET_NOT_DECOMMISSIONED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Body over 16 KB (PAYLOAD_TOO_LARGE) */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Request body exceeds the 16 KB limit",
                     *       "error_code": "PAYLOAD_TOO_LARGE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Body sent with a Content-Type other than application/json (UNSUPPORTED_MEDIA_TYPE) */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Request body must be application/json",
                     *       "error_code": "UNSUPPORTED_MEDIA_TYPE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    AssetsController_list: {
        parameters: {
            query?: {
                /** @description The maximum number of items to return. */
                limit?: number;
                /** @description The page to return, counting from 1; a page past the end is empty. */
                page?: number;
                status?: "active" | "decommissioned";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of assets, ordered by asset_id, and the count of every match */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssetListResponseDto"];
                };
            };
            /** @description Invalid status, limit or page (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "status must be one of the following values: active, decommissioned",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (ASSET_ACCESS_DENIED) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Asset not found or clearance insufficient",
                     *       "error_code": "ASSET_ACCESS_DENIED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    DecommissionRequestsController_list: {
        parameters: {
            query?: {
                /** @description The maximum number of items to return. */
                limit?: number;
                /** @description The page to return, counting from 1; a page past the end is empty. */
                page?: number;
                state?: "pending" | "approved" | "rejected" | "withdrawn" | "expired";
                asset_id?: string;
                /** @description me: the pending requests that name the caller as authorized_by, awaiting the caller's decision. Not together with state. */
                awaiting?: "me";
                /** @description Keyset cursor: the previous page's next_cursor; the page holds the matching requests older than that page's last. Not together with page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of requests, newest first, and next_cursor */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecommissionRequestListResponseDto"];
                };
            };
            /** @description Invalid state, asset_id, awaiting, limit, page or cursor (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "state must be one of the following values: pending, approved, rejected, withdrawn, expired",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (CLEARANCE_INSUFFICIENT) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    DecommissionRequestsController_findOne: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The request_id the DELETE answered. */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request and its state */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecommissionRequestResponseDto"];
                };
            };
            /** @description Invalid request id (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "request_id must be a UUID",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Clearance below 7 (CLEARANCE_INSUFFICIENT) */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description No request with that id (DECOMMISSION_REQUEST_NOT_FOUND) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Decommission request 6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f not found",
                     *       "error_code": "DECOMMISSION_REQUEST_NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    DecommissionRequestsController_approve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The request_id the DELETE answered. */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Decommissioned: the spec's decommission body */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecommissionResponseDto"];
                };
            };
            /** @description Invalid request id (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "request_id must be a UUID",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /**
             * @description Clearance below 7 (CLEARANCE_INSUFFICIENT), or the caller is not authorized_by (DECOMMISSION_REQUEST_FORBIDDEN)
             *
             *     Clearance below 7 (CLEARANCE_INSUFFICIENT)
             */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description No request with that id (DECOMMISSION_REQUEST_NOT_FOUND), or its asset is no longer active (ASSET_ACCESS_DENIED: Asset not found or clearance insufficient) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Decommission request 6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f not found",
                     *       "error_code": "DECOMMISSION_REQUEST_NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Not pending: approved, rejected or withdrawn (DECOMMISSION_REQUEST_NOT_PENDING), or expired (DECOMMISSION_REQUEST_EXPIRED) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Decommission request is no longer pending: it was approved",
                     *       "error_code": "DECOMMISSION_REQUEST_NOT_PENDING"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    DecommissionRequestsController_reject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The request_id the DELETE answered. */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Rejected: the request, now rejected */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecommissionRequestResponseDto"];
                };
            };
            /** @description Invalid request id (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "request_id must be a UUID",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /**
             * @description Clearance below 7 (CLEARANCE_INSUFFICIENT), or the caller is not authorized_by (DECOMMISSION_REQUEST_FORBIDDEN)
             *
             *     Clearance below 7 (CLEARANCE_INSUFFICIENT)
             */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description No request with that id (DECOMMISSION_REQUEST_NOT_FOUND) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Decommission request 6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f not found",
                     *       "error_code": "DECOMMISSION_REQUEST_NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Not pending: approved, rejected or withdrawn (DECOMMISSION_REQUEST_NOT_PENDING), or expired (DECOMMISSION_REQUEST_EXPIRED) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Decommission request is no longer pending: it was approved",
                     *       "error_code": "DECOMMISSION_REQUEST_NOT_PENDING"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    DecommissionRequestsController_withdraw: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The request_id the DELETE answered. */
                request_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Withdrawn: the request, now withdrawn */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DecommissionRequestResponseDto"];
                };
            };
            /** @description Invalid request id (VALIDATION_ERROR) */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "request_id must be a UUID",
                     *       "error_code": "VALIDATION_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Missing, invalid or expired bearer token (UNAUTHENTICATED) */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "A bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /**
             * @description Clearance below 7 (CLEARANCE_INSUFFICIENT), or the caller is not requested_by (DECOMMISSION_REQUEST_FORBIDDEN)
             *
             *     Clearance below 7 (CLEARANCE_INSUFFICIENT)
             */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Clearance level 7 or higher is required",
                     *       "error_code": "CLEARANCE_INSUFFICIENT"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description No request with that id (DECOMMISSION_REQUEST_NOT_FOUND) */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Decommission request 6f1c1d2e-8b7a-4c3d-9e0f-1a2b3c4d5e6f not found",
                     *       "error_code": "DECOMMISSION_REQUEST_NOT_FOUND"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Not pending: approved, rejected or withdrawn (DECOMMISSION_REQUEST_NOT_PENDING), or expired (DECOMMISSION_REQUEST_EXPIRED) */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Decommission request is no longer pending: it was approved",
                     *       "error_code": "DECOMMISSION_REQUEST_NOT_PENDING"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Too many requests or refusals from this client (RATE_LIMITED) */
            429: {
                headers: {
                    /** @description Seconds until the client may try again */
                    "Retry-After"?: number;
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Too many requests; retry later",
                     *       "error_code": "RATE_LIMITED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description The database or the rate-limit store cannot be reached, or the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    HealthController_live: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process answers */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    HealthController_ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready. `warnings`, when present, says what an operator should know that does not make the instance unready: a JWKS served stale while its provider cannot be reached */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "success";
                        warnings?: string[];
                    };
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database or the rate-limit store (Redis) is unreachable, the database failed to store data in the last 10 s, the JWKS cannot be fetched and the last good one is older than its max-age + JWT_JWKS_STALE_SECONDS, the instance's clock differs from the database's by more than CLOCK_SKEW_MAX_MS (PostgreSQL), the audit trail's sequencing lags past AUDIT_READINESS_LAG_MS, or the instance is shutting down */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The database is unreachable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
    MetricsController_scrape: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The Prometheus text exposition format */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "text/plain; version=0.0.4; charset=utf-8": string;
                };
            };
            /** @description UNAUTHENTICATED: METRICS_TOKEN is set and the bearer token is not it; or NODE_ENV=production and no METRICS_TOKEN is configured, which the message then says */
            401: {
                headers: {
                    /** @description Always `Bearer` */
                    "WWW-Authenticate"?: "Bearer";
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The metrics bearer token is required",
                     *       "error_code": "UNAUTHENTICATED"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description Unexpected failure (INTERNAL_ERROR) */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "Internal server error",
                     *       "error_code": "INTERNAL_ERROR"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
            /** @description A refused scrape is a denial on the record, and the audit event cannot be written (SERVICE_UNAVAILABLE) */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "error",
                     *       "message": "The service is temporarily unavailable",
                     *       "error_code": "SERVICE_UNAVAILABLE"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponseDto"];
                };
            };
        };
    };
}
