import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

/**
 * The spec's success body, `{ status: "success", data }`, around a data DTO. Extend it to name the
 * response, e.g. `class VesselListResponseDto extends SuccessEnvelope(VesselPageDto) {}`: Swagger
 * names the schema after the extending class.
 */
export function SuccessEnvelope<Data>(dataType: Type<Data>) {
  class Envelope {
    @ApiProperty({ enum: ['success'] })
    status!: 'success';

    @ApiProperty({ type: dataType })
    data!: Data;
  }
  return Envelope;
}
