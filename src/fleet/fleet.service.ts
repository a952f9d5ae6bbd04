import { Injectable } from '@nestjs/common';
import { pageMeta, pageOffset } from '../common';
import type { ListVesselsQueryDto, VesselPageDto } from './dto/vessel.dto';
import { FleetRepository } from './fleet.repository';

@Injectable()
export class FleetService {
  constructor(private readonly fleet: FleetRepository) {}

  async listVessels(query: ListVesselsQueryDto): Promise<VesselPageDto> {
    const { rows, total } = await this.fleet.findPage(query.sector, query.limit, pageOffset(query));
    return { vessels: rows, ...pageMeta(query, total) };
  }
}
