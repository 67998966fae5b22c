// Source lists for the deterministic seed. Prices are in kuruş (TRY minor units).

export interface BaseProduct {
  name: string;
  category: string;
  price: number;
  options?: { name: string; values: string[] };
}

export const baseProducts: BaseProduct[] = [
  { name: 'Bakır Cezve', category: 'Ev & Yaşam', price: 44990, options: { name: 'Boy', values: ['Küçük', 'Orta', 'Büyük'] } },
  { name: 'İznik Desenli Kupa', category: 'Ev & Yaşam', price: 18990, options: { name: 'Desen', values: ['Lale', 'Karanfil'] } },
  { name: 'Pamuklu Peştemal', category: 'Ev & Yaşam', price: 34950, options: { name: 'Renk', values: ['Lacivert', 'Bordo', 'Hardal'] } },
  { name: 'Çay Bardağı Seti (6\'lı)', category: 'Ev & Yaşam', price: 27500 },
  { name: 'Çelik Çaydanlık', category: 'Ev & Yaşam', price: 89900, options: { name: 'Hacim', values: ['1,2 L', '2 L'] } },
  { name: 'El Dokuma Kilim', category: 'Ev & Yaşam', price: 649900, options: { name: 'Ölçü', values: ['80x150', '120x180'] } },
  { name: 'Seramik Servis Tabağı', category: 'Ev & Yaşam', price: 31990 },
  { name: 'Nazar Boncuklu Anahtarlık', category: 'Ev & Yaşam', price: 4990 },
  { name: 'Türk Kahvesi 250 g', category: 'Süpermarket', price: 12950, options: { name: 'Kavrum', values: ['Orta', 'Koyu'] } },
  { name: 'Antep Fıstıklı Lokum 500 g', category: 'Süpermarket', price: 29900 },
  { name: 'Rize Çayı 1 kg', category: 'Süpermarket', price: 21975 },
  { name: 'Natürel Sızma Zeytinyağı 1 L', category: 'Süpermarket', price: 42500, options: { name: 'Ambalaj', values: ['Cam Şişe', 'Teneke'] } },
  { name: 'Çiçek Balı 850 g', category: 'Süpermarket', price: 38990 },
  { name: 'Kuru Kayısı 500 g', category: 'Süpermarket', price: 17450 },
  { name: 'Pul Biber 250 g', category: 'Süpermarket', price: 8990 },
  { name: 'Tahin Pekmez İkilisi', category: 'Süpermarket', price: 23990 },
  { name: 'Limon Kolonyası 400 ml', category: 'Kozmetik', price: 13990, options: { name: 'Koku', values: ['Limon', 'Lavanta', 'Tütün'] } },
  { name: 'Zeytinyağlı Sabun', category: 'Kozmetik', price: 6990 },
  { name: 'Gül Suyu Tonik 250 ml', category: 'Kozmetik', price: 15490 },
  { name: 'Defne Şampuanı', category: 'Kozmetik', price: 19990 },
  { name: 'Kese ve Lif Seti', category: 'Kozmetik', price: 11990 },
  { name: 'Keten Gömlek', category: 'Moda', price: 79990, options: { name: 'Beden', values: ['S', 'M', 'L', 'XL'] } },
  { name: 'Deri Cüzdan', category: 'Moda', price: 64950, options: { name: 'Renk', values: ['Taba', 'Siyah'] } },
  { name: 'İpek Eşarp', category: 'Moda', price: 119900 },
  { name: 'Yün Atkı', category: 'Moda', price: 45990, options: { name: 'Renk', values: ['Gri', 'Bej'] } },
  { name: 'Kanvas Sırt Çantası', category: 'Moda', price: 89990 },
  { name: 'Kablosuz Kulaklık', category: 'Elektronik', price: 249900, options: { name: 'Renk', values: ['Siyah', 'Beyaz'] } },
  { name: 'Powerbank 20000 mAh', category: 'Elektronik', price: 129990 },
  { name: 'USB-C Şarj Kablosu 1 m', category: 'Elektronik', price: 14990 },
  { name: 'Akıllı Priz', category: 'Elektronik', price: 54990 },
  { name: 'Mekanik Klavye (Türkçe Q)', category: 'Elektronik', price: 329900, options: { name: 'Switch', values: ['Kırmızı', 'Kahverengi'] } },
  { name: 'Bluetooth Hoparlör', category: 'Elektronik', price: 179900 },
  { name: 'Yoga Matı', category: 'Spor', price: 39990, options: { name: 'Kalınlık', values: ['4 mm', '6 mm'] } },
  { name: 'Çelik Termos 750 ml', category: 'Spor', price: 49990 },
  { name: 'Koşu Ayakkabısı', category: 'Spor', price: 219900, options: { name: 'Numara', values: ['40', '42', '44'] } },
  { name: 'Kamp Sandalyesi', category: 'Spor', price: 74990 },
  { name: 'Sinekli Bakkal (Ciltli)', category: 'Kitap', price: 24500 },
  { name: 'Tutunamayanlar', category: 'Kitap', price: 39900 },
  { name: 'İnce Memed 1', category: 'Kitap', price: 28750 },
  { name: 'Saatleri Ayarlama Enstitüsü', category: 'Kitap', price: 26900 },
  { name: 'Kürk Mantolu Madonna', category: 'Kitap', price: 9990 },
  { name: 'Ahşap Tavla Takımı', category: 'Oyuncak & Hobi', price: 99990, options: { name: 'Boy', values: ['Orta', 'Büyük'] } },
  { name: 'Okey Takımı', category: 'Oyuncak & Hobi', price: 64990 },
  { name: 'Ebru Boya Seti', category: 'Oyuncak & Hobi', price: 35990 },
  { name: 'Hat Kalemi Seti', category: 'Oyuncak & Hobi', price: 21990 },
  { name: 'Bahçe Budama Makası', category: 'Bahçe', price: 32990 },
  { name: 'Toprak Saksı Seti', category: 'Bahçe', price: 18990 },
  { name: 'Fesleğen Tohumu', category: 'Bahçe', price: 2490 },
  { name: 'Hamak', category: 'Bahçe', price: 84990 },
  { name: 'Bambu Kesme Tahtası', category: 'Ev & Yaşam', price: 16990 },
];

export const editions = ['', ' — Atölye Serisi'];

export const firstNames = [
  'Ayşe', 'Mehmet', 'Zeynep', 'Mustafa', 'Elif', 'Ahmet', 'Fatma', 'Emre', 'Selin', 'Burak',
  'Deniz', 'Can', 'Ece', 'Kerem', 'Şule', 'Oğuz', 'Gökçe', 'Tolga', 'İpek', 'Barış',
  'Nazlı', 'Serkan', 'Derya', 'Uğur', 'Esra', 'Hakan', 'Yasemin', 'Cem', 'Pınar', 'Onur',
];

export const lastNames = [
  'Yılmaz', 'Kaya', 'Demir', 'Şahin', 'Çelik', 'Yıldız', 'Öztürk', 'Aydın', 'Özdemir', 'Arslan',
  'Doğan', 'Kılıç', 'Aslan', 'Çetin', 'Kurt', 'Koç', 'Özkan', 'Şimşek', 'Polat', 'Erdoğan',
];

export const places: { city: string; districts: string[] }[] = [
  { city: 'İstanbul', districts: ['Kadıköy', 'Beşiktaş', 'Üsküdar', 'Şişli', 'Bakırköy', 'Sarıyer'] },
  { city: 'Ankara', districts: ['Çankaya', 'Keçiören', 'Yenimahalle'] },
  { city: 'İzmir', districts: ['Karşıyaka', 'Bornova', 'Konak', 'Çeşme'] },
  { city: 'Bursa', districts: ['Nilüfer', 'Osmangazi'] },
  { city: 'Antalya', districts: ['Muratpaşa', 'Konyaaltı'] },
  { city: 'Eskişehir', districts: ['Tepebaşı', 'Odunpazarı'] },
  { city: 'Gaziantep', districts: ['Şahinbey', 'Şehitkamil'] },
  { city: 'Trabzon', districts: ['Ortahisar', 'Akçaabat'] },
];

export const vendors = [
  { name: 'Anadolu Zanaat Atölyesi', status: 'approved', commissionBps: 1200, city: 'Eskişehir' },
  { name: 'Ege Organik Gıda', status: 'approved', commissionBps: 1000, city: 'İzmir' },
  { name: 'Boğaziçi Elektronik', status: 'applied', commissionBps: 1500, city: 'İstanbul' },
];
