export { ImportModule } from './import.module';
export { ImportRejectedError, RecordImportService, type ImportSummary } from './record-import.service';
export { RecordExportService } from './record-export.service';
export { FORMATS, formatOfFileName, readRecords, type FileLayout, type RecordFormat } from './formats';
export { RECORD_KINDS, isRecordKind, type RecordKind } from './record-kinds';
export { TIMESTAMP_WITH_OFFSET } from './dto/import-records.dto';
