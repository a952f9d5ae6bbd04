export { ImportModule } from './import.module';
export { RecordImportService } from './record-import.service';
